package dev.fairing4j.deployer.kubeflow;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.job.internal.DeployerKinds;
import dev.fairing4j.deployer.job.internal.JobKind;
import dev.fairing4j.deployer.job.internal.ReplicaSlot;
import dev.fairing4j.deployer.kubeflow.internal.TfJobType;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A Kubeflow TFJob: Chief, parameter servers, Workers and an Evaluator in any mix (at least one
 * replica), each in a container named {@code tensorflow} with port {@code tfjob-port} 2222; the
 * operator gives each a {@code TF_CONFIG} describing the cluster. Replica counts and restart
 * policies (default Never) are written explicitly.
 *
 * <p>An immutable value: obtain one from {@code Deployers.tfJob(name)}. By default it has one
 * Worker and nothing else.
 */
public final class TfJobDeployer extends JobDeployer<TfJobDeployer> {
  static {
    // How JobDeployer reaches this kind's rendering without a protected internal type.
    DeployerKinds.register(TfJobDeployer.class, (deployer, context) -> deployer.kind());
  }

  private static final TfJobType TYPE = new TfJobType();
  /** The container name the operator requires. */
  public static final String CONTAINER = "tensorflow";
  /** The port name the operator looks up. */
  public static final String PORT_NAME = "tfjob-port";
  /** The operator's default port. */
  public static final int PORT = 2222;

  // Manifest order, as the operator's docs list the roles.
  private static final List<ReplicaType> ORDER = List.of(ReplicaType.CHIEF, ReplicaType.PS,
      ReplicaType.WORKER, ReplicaType.EVALUATOR);
  private static final Set<ReplicaType> TYPES = EnumSet.copyOf(ORDER);

  private final Map<ReplicaType, Integer> counts;
  private final SuccessPolicy successPolicy;
  private final KubeflowPolicy policy;

  private TfJobDeployer(JobOptions options, Map<ReplicaType, Integer> counts,
      SuccessPolicy successPolicy, KubeflowPolicy policy) {
    super(options);
    this.counts = Map.copyOf(counts);
    this.successPolicy = successPolicy;
    this.policy = policy;
  }

  /**
   * A TFJob called {@code name} with one Worker, restartPolicy Never, in namespace
   * {@code default}.
   *
   * @throws InvalidInputException when the name is not a DNS-1035 label
   */
  public static TfJobDeployer named(String name) {
    return new TfJobDeployer(JobOptions.named(name), Map.of(ReplicaType.WORKER, 1),
        SuccessPolicy.CHIEF_OR_WORKER_ZERO, KubeflowPolicy.defaults(RestartPolicy.NEVER));
  }

  /** Whether there is a Chief: 0 or 1. */
  public TfJobDeployer chief(int count) {
    return count(ReplicaType.CHIEF, "chief", count, 1);
  }

  /** How many parameter servers (at least 0). */
  public TfJobDeployer ps(int count) {
    return count(ReplicaType.PS, "ps", count, Integer.MAX_VALUE);
  }

  /** How many Workers (at least 0). */
  public TfJobDeployer workers(int count) {
    return count(ReplicaType.WORKER, "workers", count, Integer.MAX_VALUE);
  }

  /** Whether there is an Evaluator: 0 or 1. */
  public TfJobDeployer evaluator(int count) {
    return count(ReplicaType.EVALUATOR, "evaluator", count, 1);
  }

  /** When the job counts as succeeded (default: the Chief, or worker 0 without one). */
  public TfJobDeployer successPolicy(SuccessPolicy value) {
    return new TfJobDeployer(options(), counts, Objects.requireNonNull(value, "successPolicy"),
        policy);
  }

  /** The restart policy of every replica (default Never). */
  public TfJobDeployer restartPolicy(RestartPolicy restartPolicy) {
    return new TfJobDeployer(options(), counts, successPolicy, policy.withRestart(restartPolicy));
  }

  /** The restart policy of one replica type. */
  public TfJobDeployer restartPolicy(ReplicaType type, RestartPolicy restartPolicy) {
    if (!TYPES.contains(Objects.requireNonNull(type, "replica type"))) {
      throw InvalidInputException.of("restartPolicy(" + type + ", ..)",
          "a TFJob has no " + type + " replicas", "use Chief, PS, Worker or Evaluator");
    }
    return new TfJobDeployer(options(), counts, successPolicy,
        policy.withRestart(type, restartPolicy));
  }

  /** Which pods the operator deletes at the end (default None: logs stay readable). */
  public TfJobDeployer cleanPodPolicy(CleanPodPolicy cleanPodPolicy) {
    return new TfJobDeployer(options(), counts, successPolicy,
        policy.withCleanPodPolicy(Objects.requireNonNull(cleanPodPolicy, "cleanPodPolicy")));
  }

  /** Gang-scheduling hints (queue, PriorityClass, minAvailable). */
  public TfJobDeployer schedulingPolicy(SchedulingPolicy schedulingPolicy) {
    return new TfJobDeployer(options(), counts, successPolicy,
        policy.withScheduling(schedulingPolicy));
  }

  /** The number of replicas of {@code type}. */
  public int replicas(ReplicaType type) {
    return counts.getOrDefault(type, 0);
  }

  @Override
  protected TfJobDeployer withOptions(JobOptions newOptions) {
    return new TfJobDeployer(newOptions, counts, successPolicy, policy);
  }

  @Override
  protected Set<ReplicaType> replicaTypes() {
    return TYPES;
  }

  @Override
  protected String kindName() {
    return "TFJob";
  }

  private TfJobDeployer count(ReplicaType type, String field, int count, int max) {
    Validators.atLeast(field, count, 0);
    if (count > max) {
      throw InvalidInputException.of(field, count + " is above the maximum of " + max,
          "a TFJob has at most one " + type + "; use 0 or 1");
    }
    Map<ReplicaType, Integer> copy = new EnumMap<>(ReplicaType.class);
    copy.putAll(counts);
    copy.put(type, count);
    return new TfJobDeployer(options(), copy, successPolicy, policy);
  }

  private JobKind kind() {
    List<ReplicaSlot> slots = new ArrayList<>();
    for (ReplicaType type : ORDER) {
      int count = replicas(type);
      if (count > 0) {
        slots.add(new ReplicaSlot(Optional.of(type), count, policy.restartPolicy(type)));
      }
    }
    return KubeflowKind.of(TYPE, slots, policy, this::check,
        (spec, options, templates) -> {
          if (successPolicy != SuccessPolicy.CHIEF_OR_WORKER_ZERO) {
            spec.put("successPolicy", successPolicy.value());
          }
        });
  }

  private void check(JobOptions options) {
    if (ORDER.stream().mapToInt(this::replicas).sum() == 0) {
      throw InvalidInputException.of("workers", "TFJob " + options.name()
          + " has no replicas at all", "give it at least one replica, e.g. .workers(1)");
    }
    if (successPolicy == SuccessPolicy.ALL_WORKERS && replicas(ReplicaType.WORKER) == 0) {
      throw InvalidInputException.of("successPolicy", "AllWorkers needs Workers, and TFJob "
          + options.name() + " has none", "add .workers(n), or keep the default policy");
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TfJobDeployer that && options().equals(that.options())
        && counts.equals(that.counts) && successPolicy == that.successPolicy
        && policy.equals(that.policy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(options(), counts, successPolicy, policy);
  }

  @Override
  public String toString() {
    StringBuilder replicas = new StringBuilder();
    for (ReplicaType type : ORDER) {
      if (replicas(type) > 0) {
        replicas.append(", ").append(type.podName()).append('=').append(replicas(type));
      }
    }
    return "TFJob[" + describeOptions() + replicas + "]";
  }
}

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
import dev.fairing4j.deployer.kubeflow.internal.XGBoostJobType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A Kubeflow XGBoostJob: one Master (rank 0, where the script starts XGBoost's tracker) plus
 * {@link #workers(int)} Workers, each running the image in a container named {@code xgboost} with
 * port {@code xgboostjob-port} 9999. The operator gives every replica {@code MASTER_ADDR},
 * {@code MASTER_PORT}, {@code WORLD_SIZE} and {@code RANK} (and {@code WORKER_ADDRS},
 * {@code WORKER_PORT}); the job succeeds when the Master does. Replica counts and restart
 * policies are written explicitly. The restart policy is OnFailure by default, not the
 * operator's Never: the operator gives XGBoost Workers no step that waits for the Master, so a
 * Worker that starts first finds no tracker under the Master's name yet and exits; restarted, it
 * joins (seen on a real cluster: upstream's xgboost-dist script failed 1 run in 2 under Never).
 *
 * <p>An immutable value: obtain one from {@code Deployers.xgboostJob(name)}.
 */
public final class XGBoostJobDeployer extends JobDeployer<XGBoostJobDeployer> {
  static {
    // How JobDeployer reaches this kind's rendering without a protected internal type.
    DeployerKinds.register(XGBoostJobDeployer.class, (deployer, context) -> deployer.kind());
  }

  private static final XGBoostJobType TYPE = new XGBoostJobType();
  /** The container name the operator requires. */
  public static final String CONTAINER = "xgboost";
  /** The port name the operator looks up. */
  public static final String PORT_NAME = "xgboostjob-port";
  /** The operator's default port. */
  public static final int PORT = 9999;

  private static final Set<ReplicaType> TYPES = EnumSet.of(ReplicaType.MASTER,
      ReplicaType.WORKER);

  private final int workers;
  private final KubeflowPolicy policy;

  private XGBoostJobDeployer(JobOptions options, int workers, KubeflowPolicy policy) {
    super(options);
    this.workers = workers;
    this.policy = policy;
  }

  /**
   * An XGBoostJob called {@code name} with a Master only, restartPolicy OnFailure, in namespace
   * {@code default}.
   *
   * @throws InvalidInputException when the name is not a DNS-1035 label
   */
  public static XGBoostJobDeployer named(String name) {
    return new XGBoostJobDeployer(JobOptions.named(name), 0,
        KubeflowPolicy.defaults(RestartPolicy.ON_FAILURE));
  }

  /** How many Workers train beside the Master (at least 0). */
  public XGBoostJobDeployer workers(int count) {
    Validators.atLeast("workers", count, 0);
    return new XGBoostJobDeployer(options(), count, policy);
  }

  /** The restart policy of every replica (default OnFailure). */
  public XGBoostJobDeployer restartPolicy(RestartPolicy restartPolicy) {
    return new XGBoostJobDeployer(options(), workers, policy.withRestart(restartPolicy));
  }

  /** The restart policy of one replica type, Master or Worker. */
  public XGBoostJobDeployer restartPolicy(ReplicaType type, RestartPolicy restartPolicy) {
    if (!TYPES.contains(Objects.requireNonNull(type, "replica type"))) {
      throw InvalidInputException.of("restartPolicy(" + type + ", ..)",
          "an XGBoostJob has no " + type + " replicas", "use Master or Worker");
    }
    return new XGBoostJobDeployer(options(), workers, policy.withRestart(type, restartPolicy));
  }

  /** Which pods the operator deletes at the end (default None: logs stay readable). */
  public XGBoostJobDeployer cleanPodPolicy(CleanPodPolicy cleanPodPolicy) {
    return new XGBoostJobDeployer(options(), workers,
        policy.withCleanPodPolicy(Objects.requireNonNull(cleanPodPolicy, "cleanPodPolicy")));
  }

  /** Gang-scheduling hints (queue, PriorityClass, minAvailable). */
  public XGBoostJobDeployer schedulingPolicy(SchedulingPolicy schedulingPolicy) {
    return new XGBoostJobDeployer(options(), workers, policy.withScheduling(schedulingPolicy));
  }

  /** The number of Workers. */
  public int workers() {
    return workers;
  }

  @Override
  protected XGBoostJobDeployer withOptions(JobOptions newOptions) {
    return new XGBoostJobDeployer(newOptions, workers, policy);
  }

  @Override
  protected Set<ReplicaType> replicaTypes() {
    return TYPES;
  }

  @Override
  protected String kindName() {
    return TYPE.kind();
  }

  private JobKind kind() {
    List<ReplicaSlot> slots = new ArrayList<>();
    slots.add(new ReplicaSlot(Optional.of(ReplicaType.MASTER), 1,
        policy.restartPolicy(ReplicaType.MASTER)));
    if (workers > 0) {
      slots.add(new ReplicaSlot(Optional.of(ReplicaType.WORKER), workers,
          policy.restartPolicy(ReplicaType.WORKER)));
    }
    return KubeflowKind.of(TYPE, slots, policy, options -> { }, (spec, options, templates) -> { });
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof XGBoostJobDeployer that && options().equals(that.options())
        && workers == that.workers && policy.equals(that.policy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(options(), workers, policy);
  }

  @Override
  public String toString() {
    return "XGBoostJob[" + describeOptions() + ", master=1, workers=" + workers + "]";
  }
}

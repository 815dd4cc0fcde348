package dev.fairing4j.deployer.kubeflow;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.job.internal.DeployerKinds;
import dev.fairing4j.deployer.job.internal.JobKind;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.Quantities;
import dev.fairing4j.deployer.job.internal.ReplicaSlot;
import dev.fairing4j.deployer.kubeflow.internal.PyTorchJobType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A Kubeflow PyTorchJob: one Master (rank 0, so the operator injects
 * {@code MASTER_ADDR}/{@code RANK}/{@code WORLD_SIZE}) plus {@link #workers(int)} Workers, each
 * running the image in a container named {@code pytorch} with port {@code pytorchjob-port}
 * 23456; or, {@link #withoutMaster()}, Workers only, as upstream's elastic examples write an
 * elastic job (torchrun then forms the world through its rendezvous on Worker 0). Every default
 * the operator would apply only in memory (replicas, restartPolicy, port, cleanPodPolicy,
 * nprocPerNode) is written out, so the stored object says what runs.
 *
 * <p>An immutable value: obtain one from {@code Deployers.pyTorchJob(name)}.
 */
public final class PyTorchJobDeployer extends JobDeployer<PyTorchJobDeployer> {
  static {
    // How JobDeployer reaches this kind's rendering without a protected internal type.
    DeployerKinds.register(PyTorchJobDeployer.class, (deployer, context) -> deployer.kind());
  }

  private static final PyTorchJobType TYPE = new PyTorchJobType();
  /** The container name the operator requires. */
  public static final String CONTAINER = "pytorch";
  /** The port name the operator looks up. */
  public static final String PORT_NAME = "pytorchjob-port";
  /** The operator's default master port. */
  public static final int PORT = 23456;

  private static final Pattern NPROC = Pattern.compile("auto|cpu|gpu|[1-9][0-9]*");
  private static final Set<ReplicaType> TYPES = EnumSet.of(ReplicaType.MASTER,
      ReplicaType.WORKER);

  private final boolean master;
  private final int workers;
  /** Empty: one process per GPU the pods ask for, else 1, written as a number at render. */
  private final Optional<String> nprocPerNode;
  private final Optional<Elastic> elastic;
  private final KubeflowPolicy policy;

  private record Elastic(int minReplicas, int maxReplicas, Optional<Integer> maxRestarts) {}

  private PyTorchJobDeployer(JobOptions options, boolean master, int workers,
      Optional<String> nprocPerNode, Optional<Elastic> elastic, KubeflowPolicy policy) {
    super(options);
    this.master = master;
    this.workers = workers;
    this.nprocPerNode = nprocPerNode;
    this.elastic = elastic;
    this.policy = policy;
  }

  /**
   * A PyTorchJob called {@code name} with a Master only, restartPolicy OnFailure, in namespace
   * {@code default}, and one process per pod (one per GPU when the pods ask for GPUs): see
   * {@link #nprocPerNode(String)}.
   *
   * @throws InvalidInputException when the name is not a DNS-1035 label
   */
  public static PyTorchJobDeployer named(String name) {
    return new PyTorchJobDeployer(JobOptions.named(name), true, 0, Optional.empty(),
        Optional.empty(), KubeflowPolicy.defaults(RestartPolicy.ON_FAILURE));
  }

  /**
   * A job of Workers only, as upstream's elastic examples write one: no Master, so the operator
   * injects no {@code MASTER_ADDR}, {@code RANK} or {@code WORLD_SIZE}, only torchrun's
   * {@code PET_*} variables, and torchrun forms the world through its rendezvous (on Worker 0
   * for an {@link #elastic} job); Worker 0 is the job's lead pod, and the job succeeds when
   * every Worker has. Needs {@link #workers(int)} of at least 1 (checked when it is rendered).
   */
  public PyTorchJobDeployer withoutMaster() {
    return new PyTorchJobDeployer(options(), false, workers, nprocPerNode, elastic, policy);
  }

  /** How many Workers run beside the Master (at least 0). */
  public PyTorchJobDeployer workers(int count) {
    Validators.atLeast("workers", count, 0);
    return new PyTorchJobDeployer(options(), master, count, nprocPerNode, elastic, policy);
  }

  /** The restart policy of every replica (default OnFailure). */
  public PyTorchJobDeployer restartPolicy(RestartPolicy restartPolicy) {
    return new PyTorchJobDeployer(options(), master, workers, nprocPerNode, elastic,
        policy.withRestart(restartPolicy));
  }

  /** The restart policy of one replica type, e.g. Never for the Master. */
  public PyTorchJobDeployer restartPolicy(ReplicaType type, RestartPolicy restartPolicy) {
    checkType("restartPolicy(" + type + ", ..)", type);
    return new PyTorchJobDeployer(options(), master, workers, nprocPerNode, elastic,
        policy.withRestart(type, restartPolicy));
  }

  /**
   * Processes per pod for {@code torchrun}: {@code auto}, {@code cpu}, {@code gpu} or a number,
   * as a string (the CRD's type).
   *
   * <p>Unset, the manifest says a number: the GPUs each pod asks for ({@link
   * dev.fairing4j.deployer.Mutators#gpus(int)}), else 1. The operator's own default,
   * {@code auto}, lets torchrun start one process per CPU core of whatever node the pod lands on,
   * so the world torchrun builds would not be the pod's {@code WORLD_SIZE} (replicas x 1); name
   * {@code "auto"} here to get it anyway.
   */
  public PyTorchJobDeployer nprocPerNode(String value) {
    Validators.requireText("nprocPerNode", value);
    if (!NPROC.matcher(value).matches()) {
      throw InvalidInputException.of("nprocPerNode", "'" + value + "' is not a process count",
          "use \"auto\", \"cpu\", \"gpu\" or a positive whole number such as \"2\"");
    }
    return new PyTorchJobDeployer(options(), master, workers, Optional.of(value), elastic, policy);
  }

  /**
   * Makes the job elastic: torchrun rendezvous (c10d) accepts between {@code minReplicas} and
   * {@code maxReplicas} nodes.
   */
  public PyTorchJobDeployer elastic(int minReplicas, int maxReplicas) {
    Validators.atLeast("elastic minReplicas", minReplicas, 1);
    if (maxReplicas < minReplicas) {
      throw InvalidInputException.of("elastic maxReplicas", maxReplicas
          + " is below minReplicas " + minReplicas, "use maxReplicas >= minReplicas");
    }
    return new PyTorchJobDeployer(options(), master, workers, nprocPerNode,
        Optional.of(new Elastic(minReplicas, maxReplicas, Optional.empty())), policy);
  }

  /**
   * Makes the job elastic as {@link #elastic(int, int)} does, with the elastic policy's
   * {@code maxRestarts}: how often torchrun's agent restarts the workers of a node after a
   * failure ({@code PET_MAX_RESTARTS}, torchrun's {@code --max-restarts}) before it gives up.
   */
  public PyTorchJobDeployer elastic(int minReplicas, int maxReplicas, int maxRestarts) {
    Validators.atLeast("elastic maxRestarts", maxRestarts, 0);
    PyTorchJobDeployer ranged = elastic(minReplicas, maxReplicas);
    return new PyTorchJobDeployer(options(), master, workers, nprocPerNode,
        Optional.of(new Elastic(minReplicas, maxReplicas, Optional.of(maxRestarts))),
        ranged.policy);
  }

  /** Which pods the operator deletes at the end (default None: logs stay readable). */
  public PyTorchJobDeployer cleanPodPolicy(CleanPodPolicy cleanPodPolicy) {
    return new PyTorchJobDeployer(options(), master, workers, nprocPerNode, elastic,
        policy.withCleanPodPolicy(Objects.requireNonNull(cleanPodPolicy, "cleanPodPolicy")));
  }

  /** Gang-scheduling hints (queue, PriorityClass, minAvailable). */
  public PyTorchJobDeployer schedulingPolicy(SchedulingPolicy schedulingPolicy) {
    return new PyTorchJobDeployer(options(), master, workers, nprocPerNode, elastic,
        policy.withScheduling(schedulingPolicy));
  }

  /** The number of Workers. */
  public int workers() {
    return workers;
  }

  /** Whether the job has a Master ({@link #withoutMaster()} drops it). */
  public boolean hasMaster() {
    return master;
  }

  @Override
  protected PyTorchJobDeployer withOptions(JobOptions newOptions) {
    return new PyTorchJobDeployer(newOptions, master, workers, nprocPerNode, elastic, policy);
  }

  @Override
  protected Set<ReplicaType> replicaTypes() {
    return TYPES;
  }

  @Override
  protected String kindName() {
    return "PyTorchJob";
  }

  private void checkType(String field, ReplicaType type) {
    if (!TYPES.contains(Objects.requireNonNull(type, "replica type"))) {
      throw InvalidInputException.of(field, "a PyTorchJob has no " + type + " replicas",
          "use Master or Worker");
    }
  }

  private JobKind kind() {
    List<ReplicaSlot> slots = new ArrayList<>();
    if (master) {
      slots.add(new ReplicaSlot(Optional.of(ReplicaType.MASTER), 1,
          policy.restartPolicy(ReplicaType.MASTER)));
    }
    if (workers > 0) {
      slots.add(new ReplicaSlot(Optional.of(ReplicaType.WORKER), workers,
          policy.restartPolicy(ReplicaType.WORKER)));
    }
    return KubeflowKind.of(TYPE, slots, policy,
        options -> {
          Validators.atLeast("workers", workers, 0);
          if (!master && workers == 0) {
            throw InvalidInputException.of("workers", "a PyTorchJob without a Master has no"
                + " replica with 0 Workers", "add .workers(2), or keep the Master (drop"
                + " .withoutMaster())");
          }
        },
        (spec, options, templates) -> {
          elastic.ifPresent(e -> {
            Map<String, Object> map = Json.map();
            map.put("minReplicas", e.minReplicas());
            map.put("maxReplicas", e.maxReplicas());
            map.put("rdzvBackend", "c10d");
            e.maxRestarts().ifPresent(n -> map.put("maxRestarts", n));
            spec.put("elasticPolicy", map);
          });
          spec.put("nprocPerNode", nprocPerNode.orElseGet(() -> processesPerGpu(templates)));
        });
  }

  /**
   * One process per GPU a pod asks for, else 1, the same for every replica: a PyTorchJob has one
   * {@code nprocPerNode}, and {@code WORLD_SIZE} counts replicas times it.
   */
  private String processesPerGpu(List<Map<String, Object>> templates) {
    List<Integer> perPod = templates.stream()
        .map(template -> Json.maps(Json.child(template, "spec").get("containers")).stream()
            .filter(container -> CONTAINER.equals(container.get("name")))
            .mapToInt(Quantities::gpus).sum())
        .distinct().toList();
    if (perPod.size() > 1) {
      throw InvalidInputException.of("nprocPerNode", "the Master and the Workers ask for "
          + "different GPU counts " + perPod + ", so no one process count per pod follows",
          "give every replica the same Mutators.gpus(n), or set nprocPerNode(\"<n>\")");
    }
    return String.valueOf(Math.max(1, perPod.isEmpty() ? 0 : perPod.get(0)));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof PyTorchJobDeployer that && options().equals(that.options())
        && master == that.master && workers == that.workers
        && nprocPerNode.equals(that.nprocPerNode)
        && elastic.equals(that.elastic) && policy.equals(that.policy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(options(), master, workers, nprocPerNode, elastic, policy);
  }

  @Override
  public String toString() {
    return "PyTorchJob[" + describeOptions() + ", master=" + (master ? 1 : 0) + ", workers="
        + workers + elastic.map(e -> ", elastic=" + e.minReplicas() + ".." + e.maxReplicas()
            + e.maxRestarts().map(n -> ", maxRestarts=" + n).orElse("")).orElse("") + "]";
  }
}

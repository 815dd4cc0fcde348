package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.core.InvalidInputException;
import java.util.List;
import java.util.Optional;

/**
 * The Trainer v2 runtimes the local cluster can stand in for. It has no runtime objects to read,
 * so it knows the shipped torch runtime by heart: {@code torch-distributed} (kubeflow/trainer
 * {@code manifests/base/runtimes/torch_distributed.yaml}) has one replicated job {@code node},
 * the torch plugin, one node unless the TrainJob says more, and the JobSet's defaults for its
 * Job: pods restart OnFailure, at most 6 times (the Job's default backoffLimit).
 */
public final class LocalRuntimes {
  /** The ClusterTrainingRuntimes the local cluster runs. */
  public static final List<Runtime> KNOWN = List.of(
      new Runtime("torch-distributed", "torch", RestartPolicy.ON_FAILURE, 6));

  private LocalRuntimes() {}

  /**
   * A runtime as the local cluster runs it.
   *
   * @param name the ClusterTrainingRuntime's name
   * @param framework its {@code trainer.kubeflow.org/framework} label
   * @param restartPolicy the node pods' restart policy
   * @param backoffLimit the node Job's backoffLimit: restarts over all nodes before it fails
   */
  public record Runtime(String name, String framework, RestartPolicy restartPolicy,
      int backoffLimit) {}

  /** The known runtime {@code name} of {@code kind}, if the local cluster runs it. */
  public static Optional<Runtime> find(String kind, String name) {
    if (!"ClusterTrainingRuntime".equals(kind)) {
      return Optional.empty();
    }
    return KNOWN.stream().filter(r -> r.name().equals(name)).findFirst();
  }

  /** The runtime, or an error naming the field, what the local cluster runs and how to go on. */
  public static Runtime require(String kind, String name) {
    return find(kind, name).orElseThrow(() -> InvalidInputException.of("runtime",
        kind + " '" + name + "' cannot run on this machine (Clusters.local(), Clusters.podman()):"
            + " it has no runtime"
            + " objects and runs the TrainJob the way ClusterTrainingRuntime "
            + names() + " would (the torch plugin's environment, one process per node)",
        "use .runtime(\"torch-distributed\") here, or run this runtime on a cluster with"
            + " Kubeflow Trainer v2 (.on(Clusters.kubernetes()))"));
  }

  private static String names() {
    return String.join(", ", KNOWN.stream().map(Runtime::name).toList());
  }
}

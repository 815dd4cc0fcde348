package dev.fairing4j.deployer.trainer;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import dev.fairing4j.core.internal.Validators;
import java.util.Objects;
import java.util.Optional;

/**
 * A Kubeflow Trainer v2 runtime a TrainJob can run on (the Kubeflow SDK's {@code Runtime}), as
 * {@link dev.fairing4j.deployer.TrainingClient#runtimes()} reads it: a cluster-wide
 * ClusterTrainingRuntime or a TrainingRuntime of one namespace, with what its {@code node} step
 * runs. Pick it for a job with {@code Deployers.trainJob(..).runtime(name)} (cluster-wide) or
 * {@code .namespacedRuntime(name)}.
 *
 * @param name the runtime's name, e.g. {@code torch-distributed}
 * @param kind {@code ClusterTrainingRuntime} or {@code TrainingRuntime}
 * @param namespace the namespace of a TrainingRuntime; empty for a ClusterTrainingRuntime
 * @param framework its {@code trainer.kubeflow.org/framework} label, e.g. {@code torch},
 *     {@code deepspeed}, {@code xgboost}; empty when it has none
 * @param numNodes the nodes a TrainJob gets when it names no count ({@code mlPolicy.numNodes})
 * @param image the image its {@code node} container runs; empty on this machine's clusters,
 *     which run the job with this machine's Python (local) or the pipeline's image (podman)
 * @param gpusPerNode the GPUs its {@code node} container asks for ({@code nvidia.com/gpu},
 *     {@code amd.com/gpu}); 0 when none
 */
public record TrainingRuntime(String name, String kind, Optional<String> namespace,
    Optional<String> framework, int numNodes, Optional<String> image, int gpusPerNode)
    implements Displayable {
  /** The kind of a cluster-wide runtime. */
  public static final String CLUSTER_WIDE = "ClusterTrainingRuntime";
  /** The kind of a runtime of one namespace. */
  public static final String NAMESPACED = "TrainingRuntime";

  /** Checks the kind against its namespace. */
  public TrainingRuntime {
    KernelBridge.install();  // the first displayable value registers the renderer
    Validators.requireText("name", name);
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(framework, "framework");
    Objects.requireNonNull(image, "image");
    if (!(CLUSTER_WIDE.equals(kind) && namespace.isEmpty()
        || NAMESPACED.equals(kind) && namespace.isPresent())) {
      throw new IllegalArgumentException("a " + CLUSTER_WIDE + " has no namespace, a "
          + NAMESPACED + " has one: " + kind + " " + namespace.orElse("(none)"));
    }
  }

  /** Whether it is a ClusterTrainingRuntime, which {@code .runtime(name)} names. */
  public boolean clusterWide() {
    return CLUSTER_WIDE.equals(kind);
  }

  /** The line as HTML, for notebooks. */
  @Override
  public String toHtml() {
    return "<p>" + TextTable.escape(toString()) + "</p>";
  }

  /** The same as {@code toString()}. */
  @Override
  public String toText() {
    return toString();
  }

  /**
   * One line: {@code ClusterTrainingRuntime torch-distributed (torch, 1 node, image ..)}.
   */
  @Override
  public String toString() {
    return kind + " " + namespace.map(ns -> ns + "/").orElse("") + name + " ("
        + framework.orElse("no framework label") + ", " + numNodes
        + (numNodes == 1 ? " node" : " nodes")
        + (gpusPerNode > 0 ? ", " + gpusPerNode + " GPU per node" : "")
        + ", " + image.map(i -> "image " + i).orElse("runs on this machine") + ")";
  }
}

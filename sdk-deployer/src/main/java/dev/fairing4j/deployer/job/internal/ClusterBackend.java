package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;

/**
 * What a {@link dev.fairing4j.deployer.job.Cluster} does behind its public face: submit a rendered
 * job.
 * Every cluster implementation implements both interfaces; deployers cast to this one, so the
 * submission machinery stays out of public signatures.
 */
public interface ClusterBackend {
  /**
   * Creates the job's objects and returns a handle on it. {@code context} is the build context the
   * job runs (the local cluster runs it directly; Kubernetes ignores it).
   */
  TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions options,
      ProgressListener progress);

  /**
   * Creates an endpoint's objects (a Deployment running the model server and its Service) and
   * returns a handle on it; {@code modelName} is the model its server answers to. The default
   * refuses: not every cluster serves yet.
   *
   * @throws dev.fairing4j.core.InvalidInputException naming {@code cluster} and the fix
   */
  default Endpoint serve(RenderedJob endpoint, BuildContext context, SubmitOptions options,
      String modelName, ProgressListener progress) {
    throw InvalidInputException.of("cluster", this + " cannot serve a model yet",
        "serve on Clusters.local(), Clusters.podman() or Clusters.kubernetes()");
  }

  /** Whether KServe InferenceServices can be created here (a Kubernetes cluster). */
  default boolean servesInferenceServices() {
    return false;
  }

  /** Whether {@link #serve} creates endpoints here; checked before anything is built. */
  default boolean serves() {
    return false;
  }

  /**
   * Refuses a namespace this cluster does not have, from local knowledge only (no request):
   * the local clusters have {@code default}, the namespaces declared on them and those that hold
   * jobs, as an API server has only the namespaces someone created. The default accepts any:
   * a Kubernetes API server says so itself.
   *
   * @throws dev.fairing4j.core.InvalidInputException naming {@code namespace}
   */
  default void checkNamespace(String namespace) {}

  /**
   * The image store this cluster runs images from without a registry (podman's); empty for a
   * cluster that pulls from a registry.
   */
  default java.util.Optional<dev.fairing4j.core.LocalImageStore> imageStore() {
    return java.util.Optional.empty();
  }

  /**
   * True for a cluster that runs the build context itself (the local cluster) rather than a
   * built image: deployers then need no image, and the manifests name a placeholder one.
   */
  default boolean runsContextDirectly() {
    return false;
  }

  /**
   * The namespace jobs go to when the deployer names none (for Kubernetes, the chosen or the
   * kubeconfig context's namespace); empty to use {@code default}. Reads local configuration
   * only, never the network.
   */
  default java.util.Optional<String> jobNamespace() {
    return java.util.Optional.empty();
  }

  /**
   * Checks the cluster's local configuration (for Kubernetes: the kubeconfig files, whether named
   * or found through {@code KUBECONFIG} and {@code ~/.kube/config}, and the context) without
   * sending anything, so that a pipeline fails before it builds and pushes an image it could
   * never submit. A dry run may go on without any configuration at all. The default has nothing
   * to check.
   *
   * @throws dev.fairing4j.core.InvalidInputException naming the setting and the fix
   */
  default void checkConfiguration() {}

  /**
   * Checks everything a submission needs locally (for Kubernetes: that a configuration exists at
   * all, and reads), without sending anything. The default is {@link #checkConfiguration()}.
   *
   * @throws dev.fairing4j.core.InvalidInputException naming the setting and the fix
   */
  default void checkTarget() {
    checkConfiguration();
  }

  /**
   * Checks, before any build, that this cluster can run a TrainJob on the Trainer runtime
   * {@code name} of {@code kind} (e.g. {@code ClusterTrainingRuntime torch-distributed}). The
   * default leaves it to the cluster's Trainer at submission; a cluster that stands in for the
   * Trainer itself (the local ones) knows its runtimes and refuses others here.
   *
   * @throws dev.fairing4j.core.InvalidInputException naming {@code runtime} and the fix
   */
  default void checkTrainerRuntime(String kind, String name) {}
}

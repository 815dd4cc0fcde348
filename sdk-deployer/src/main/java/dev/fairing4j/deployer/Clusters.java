package dev.fairing4j.deployer;

import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.local.PodmanCluster;

/**
 * Where jobs run: the entry point for {@link dev.fairing4j.deployer.job.Cluster} values, e.g.
 * {@code Deployers.pyTorchJob("mnist").on(Clusters.kubernetes().namespace("kubeflow"))}.
 */
public final class Clusters {
  private Clusters() {}

  /**
   * The Kubernetes cluster kubectl would use: {@code KUBECONFIG} (several files merged like
   * kubectl), else {@code ~/.kube/config}, else in-cluster. Nothing is read until a call needs it.
   */
  public static KubernetesCluster kubernetes() {
    return KubernetesCluster.fromKubectlDefaults();
  }

  /**
   * This machine, for trying everything without a cluster: each replica runs as a sandboxed
   * local process with exactly the environment the Kubeflow operator would inject, and the build
   * context runs directly, so nothing is built or pushed. Jobs are recorded under the user's state
   * directory, so another JVM can list and attach to them.
   */
  public static LocalCluster local() {
    return LocalCluster.create();
  }

  /**
   * This machine, running the built image itself: each replica is a podman container (podman +
   * runc) of the image the pipeline built and pushed, with the same operator environment as
   * {@link #local()}, on the host network. For checking the image before a cluster runs it.
   */
  public static PodmanCluster podman() {
    return PodmanCluster.create();
  }
}

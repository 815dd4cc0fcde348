package dev.fairing4j.deploy;

import dev.fairing4j.deploy.kubernetes.KubernetesCluster;

/**
 * Where jobs run: the entry point for {@link Cluster} values, e.g.
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
}

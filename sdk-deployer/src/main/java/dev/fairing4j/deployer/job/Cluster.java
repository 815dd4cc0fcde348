package dev.fairing4j.deployer.job;

/**
 * Where a job runs: a Kubernetes cluster
 * ({@link dev.fairing4j.deployer.Clusters#kubernetes()}) or this machine
 * ({@link dev.fairing4j.deployer.Clusters#local()}). An immutable value; obtain one from
 * {@link dev.fairing4j.deployer.Clusters}.
 *
 * <p>Only the SDK's clusters ({@link dev.fairing4j.deployer.kubernetes.KubernetesCluster},
 * {@link dev.fairing4j.deployer.local.LocalCluster},
 * {@link dev.fairing4j.deployer.local.PodmanCluster}) can run jobs: a deployer refuses a
 * {@code Cluster} of another class before anything is built. (The interface would be
 * {@code sealed}, but Java seals across packages only inside a named module, which the SDK's
 * jars are not.)
 */
public interface Cluster {
  /** A short description for notebooks and logs, e.g. {@code kubernetes(context=kind-dev)}. */
  String describe();
}

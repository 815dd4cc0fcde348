package dev.fairing4j.deployer;

/**
 * Where a job runs: a Kubernetes cluster ({@link Clusters#kubernetes()}) or this machine
 * ({@link Clusters#local()}). An immutable value; obtain one from {@link Clusters}.
 */
public interface Cluster {
  /** A short description for notebooks and logs, e.g. {@code kubernetes(context=kind-dev)}. */
  String describe();
}

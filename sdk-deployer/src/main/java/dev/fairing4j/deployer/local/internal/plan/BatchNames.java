package dev.fairing4j.deployer.local.internal.plan;

/**
 * How the local cluster names the pods of a plain batch/v1 Job. Kubernetes names them
 * {@code <job>-<index>-<random>}; locally there is one process per index, so the random suffix is
 * dropped and the replica type is {@code Pod} ({@code pod-0}, {@code pod-1}, ...).
 */
public final class BatchNames {
  /** The replica type used for a plain Job's pods. */
  public static final String TYPE = "Pod";

  private BatchNames() {}
}

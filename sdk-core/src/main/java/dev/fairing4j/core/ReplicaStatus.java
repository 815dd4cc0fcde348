package dev.fairing4j.core;

/**
 * The operator's counts for one replica type ({@code status.replicaStatuses.<Type>}). Note that
 * {@code active} counts Running pods only: Pending pods are counted nowhere, so look at
 * {@link JobStatus#pods()} for the full picture.
 *
 * @param active pods running now
 * @param succeeded pods that finished successfully
 * @param failed pods that failed
 */
public record ReplicaStatus(int active, int succeeded, int failed) {

  /** No pods counted. */
  public static final ReplicaStatus NONE = new ReplicaStatus(0, 0, 0);

  @Override
  public String toString() {
    return "active=" + active + " succeeded=" + succeeded + " failed=" + failed;
  }
}

package dev.fairing4j.deployer.job;

/**
 * What happens when a replica's container exits. Kubeflow jobs accept all four; a batch Job's pods
 * accept only {@link #ON_FAILURE} and {@link #NEVER}.
 */
public enum RestartPolicy {
  /** Restart the container whatever its exit code. */
  ALWAYS("Always"),
  /** Restart the container when it exits non-zero. */
  ON_FAILURE("OnFailure"),
  /** Never restart: the first exit is final. */
  NEVER("Never"),
  /**
   * Kubeflow only: recreate the pod after exit codes of 128 and above (signals, OOMKilled 137),
   * fail the job on 1..127.
   */
  EXIT_CODE("ExitCode");

  private final String value;

  RestartPolicy(String value) {
    this.value = value;
  }

  /** The value written to the manifest, e.g. {@code OnFailure}. */
  public String value() {
    return value;
  }

  @Override
  public String toString() {
    return value;
  }
}

package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.core.InvalidInputException;
import java.util.Arrays;

/**
 * A replica's restart policy as the training operator applies it (CONTRACT.md, "Restart").
 */
public enum RestartPolicy {
  /** Restart the container whenever it exits, even with code 0. */
  ALWAYS("Always"),
  /** Restart the container when it exits with a non-zero code. */
  ON_FAILURE("OnFailure"),
  /** Never restart. */
  NEVER("Never"),
  /** Recreate the pod for exit codes of 128 and above (signals); 1..127 fail the job. */
  EXIT_CODE("ExitCode");

  private final String manifestName;

  RestartPolicy(String manifestName) {
    this.manifestName = manifestName;
  }

  /** Parses the manifest spelling. */
  public static RestartPolicy parse(String field, String value) {
    return Arrays.stream(values()).filter(p -> p.manifestName.equals(value)).findFirst()
        .orElseThrow(() -> InvalidInputException.of(field,
            "'" + value + "' is not a restart policy",
            "use Always, OnFailure, Never or ExitCode"));
  }

  /**
   * Whether a replica that exited with {@code exitCode} runs again (subject to the backoff
   * limit). ExitCode retries signals only: 137 (SIGKILL, OOM) yes, 1 no.
   */
  public boolean retries(int exitCode) {
    return switch (this) {
      case ALWAYS -> true;
      case ON_FAILURE -> exitCode != 0;
      case NEVER -> false;
      case EXIT_CODE -> exitCode >= 128;
    };
  }

  /**
   * Whether a restart replaces the pod (the operator recreates it and the job shows Restarting)
   * rather than restarting the container in place (kubelet, job stays Running).
   */
  public boolean recreatesPod() {
    return this == EXIT_CODE;
  }

  @Override
  public String toString() {
    return manifestName;
  }
}

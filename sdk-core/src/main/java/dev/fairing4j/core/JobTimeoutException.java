package dev.fairing4j.core;

import java.time.Duration;

/**
 * Thrown when a job has not finished within the time a caller waited. The job keeps running
 * unless the caller asked to delete or suspend it on timeout; {@link #lastStatus()} says where it
 * stood.
 */
public final class JobTimeoutException extends FairingException {
  private static final long serialVersionUID = 1L;

  private final transient JobStatus lastStatus;
  private final Duration timeout;

  /** A job still {@code lastStatus.phase()} after {@code timeout}. */
  public JobTimeoutException(JobStatus lastStatus, Duration timeout, String action) {
    super("wait for job", lastStatus.kind() + " " + lastStatus.name(),
        "still " + lastStatus.phase() + " after " + timeout + (action == null ? "" : "; " + action),
        "wait longer, or read status() and logs() to see why it is slow", null, null, null);
    this.lastStatus = lastStatus;
    this.timeout = timeout;
  }

  /** The status when the wait gave up. */
  public JobStatus lastStatus() {
    return lastStatus;
  }

  /** How long the caller waited. */
  public Duration timeout() {
    return timeout;
  }
}

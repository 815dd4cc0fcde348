package dev.fairing4j.core;

import java.time.Duration;

/**
 * Thrown when a job has not finished within the time a caller waited. The job keeps running
 * unless the caller asked to delete or suspend it on timeout; {@link #lastStatus()} says where it
 * stood.
 */
public final class JobTimeoutException extends FairingException {
  private static final long serialVersionUID = 1L;
  private static final int MAX_WHY = 300;

  private final transient JobStatus lastStatus;
  private final Duration timeout;

  /** A job still {@code lastStatus.phase()} after {@code timeout}. */
  public JobTimeoutException(JobStatus lastStatus, Duration timeout, String action) {
    super("wait for job", lastStatus.kind() + " " + lastStatus.name(),
        "still " + lastStatus.phase() + " after " + timeout + stuckPod(lastStatus)
            + (action == null ? "" : "; " + action),
        "wait longer, or read status() and logs() to see why it is slow", null, null, null);
    this.lastStatus = lastStatus;
    this.timeout = timeout;
  }

  /**
   * Why the first pod that is not running says it is not, e.g. {@code (mnist-worker-0
   * Unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.)}: a job that never
   * starts does not fail, so a timeout is where a user learns of a missing GPU or a bad image.
   * Only the first line of the reason's message, bounded, so the message stays readable.
   */
  private static String stuckPod(JobStatus status) {
    return status.pods().stream().filter(p -> p.reason().isPresent()).findFirst()
        .map(p -> {
          String why = p.reason().get() + p.message().map(m -> ": " + m.lines().findFirst()
              .orElse("")).orElse("");
          return " (" + p.name() + " " + (why.length() > MAX_WHY
              ? why.substring(0, MAX_WHY) + "..." : why) + ")";
        }).orElse("");
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

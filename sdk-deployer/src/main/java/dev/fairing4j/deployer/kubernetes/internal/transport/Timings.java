package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.core.FairingException;
import java.time.Duration;
import java.util.Objects;

/**
 * How often to poll and how long to wait for a deletion. Tests shorten them; users keep the
 * defaults.
 *
 * @param poll between two status or log reads
 * @param deletePoll between two checks whether a deleted object is gone
 * @param deleteTimeout how long a deletion may take before it is reported as stuck
 * @param requestTimeout how long one request may go without an answer byte before it is given
 *     up (and, where safe, sent again)
 * @param retryBudget how long one call keeps trying a hiccuping or silent server when its caller
 *     names no earlier deadline
 */
public record Timings(Duration poll, Duration deletePoll, Duration deleteTimeout,
    Duration requestTimeout, Duration retryBudget) {

  /**
   * Two seconds between reads; deletions checked twice a second, for at most two minutes; 30 s
   * per request, a minute per call.
   */
  public static final Timings DEFAULT = new Timings(Duration.ofSeconds(2), Duration.ofMillis(500),
      Duration.ofMinutes(2));

  /** Checks the parts. */
  public Timings {
    Objects.requireNonNull(poll, "poll");
    Objects.requireNonNull(deletePoll, "deletePoll");
    Objects.requireNonNull(deleteTimeout, "deleteTimeout");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    Objects.requireNonNull(retryBudget, "retryBudget");
  }

  /** The given polls, with the default request timeout (30 s) and retry budget (a minute). */
  public Timings(Duration poll, Duration deletePoll, Duration deleteTimeout) {
    this(poll, deletePoll, deleteTimeout, Duration.ofSeconds(30), KubeRest.DEFAULT_BUDGET);
  }

  /** These timings with another request timeout and retry budget. */
  public Timings withRequests(Duration newRequestTimeout, Duration newRetryBudget) {
    return new Timings(poll, deletePoll, deleteTimeout, newRequestTimeout, newRetryBudget);
  }

  /**
   * Sleeps {@code duration}; an interrupt ends the wait with a {@link FairingException} and keeps
   * the thread's interrupt flag, so the caller's thread stays interruptible.
   */
  public static void sleep(Duration duration, String what) {
    try {
      Thread.sleep(Math.max(1, duration.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw FairingException.of(what, null, "interrupted", "nothing to fix: the wait was"
          + " interrupted", e);
    }
  }
}

package dev.fairing4j.core;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a job's {@code status.conditions}, as the operator (or the local cluster) wrote it.
 *
 * @param type the condition type, e.g. {@code "Running"}
 * @param status true when the operator's status string is {@code "True"}
 * @param reason machine-readable reason, e.g. {@code "PyTorchJobSucceeded"}; may be empty
 * @param message human-readable explanation; may be empty
 * @param lastTransitionTime when {@code status} last changed, if known
 */
public record JobCondition(String type, boolean status, String reason, String message,
    Optional<Instant> lastTransitionTime) {

  /** Normalises nulls to empty values. */
  public JobCondition {
    Objects.requireNonNull(type, "type");
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
    lastTransitionTime = lastTransitionTime == null ? Optional.empty() : lastTransitionTime;
  }

  /** A condition that is True. */
  public static JobCondition isTrue(String type, String reason, String message) {
    return new JobCondition(type, true, reason, message, Optional.empty());
  }

  /** A condition that is False. */
  public static JobCondition isFalse(String type, String reason, String message) {
    return new JobCondition(type, false, reason, message, Optional.empty());
  }

  /** Reads the operator's status string: only {@code "True"} (any case) is true. */
  public static JobCondition of(String type, String status, String reason, String message,
      Instant lastTransitionTime) {
    return new JobCondition(type, "true".equalsIgnoreCase(status), reason, message,
        Optional.ofNullable(lastTransitionTime));
  }

  @Override
  public String toString() {
    return type + "=" + (status ? "True" : "False") + (reason.isEmpty() ? "" : " (" + reason + ")");
  }
}

package dev.fairing4j.core;

import dev.fairing4j.core.internal.ScriptFailures;
import java.util.List;
import java.util.Optional;

/**
 * Thrown when a job ends Failed: carries the replica that failed, its exit code, the operator's
 * message, the replica's last log lines and the warning events that explain it, so the first
 * thing a user sees is why.
 */
public final class JobFailedException extends FairingException {
  private static final long serialVersionUID = 1L;

  private final transient JobStatus status;
  private final String failedReplica;
  private final List<String> lastLines;
  private final List<String> warnings;

  /**
   * @param status the final status
   * @param failedReplica the replica that failed, e.g. {@code master-0}, if known
   * @param exitCode its exit code, if known
   * @param message the operator's or runtime's message
   * @param lastLines the failed replica's last log lines
   * @param warnings Warning events on the job and its pods
   */
  public JobFailedException(JobStatus status, Optional<String> failedReplica,
      Optional<Integer> exitCode, String message, List<String> lastLines, List<String> warnings) {
    super("training job", status.kind() + " " + status.name(),
        describe(failedReplica, exitCode, restarts(status, failedReplica), message, lastLines,
            warnings),
        ScriptFailures.diagnose(status.kind(), lastLines).map(cause -> cause + ". ")
            .orElse("read the last lines and events above (all of the log: job.logs()); fix the"
                + " script or the resources and run again. ") + restartHint(status.kind()),
        null, exitCode.orElse(null), null);
    this.status = status;
    this.failedReplica = failedReplica.orElse(null);
    this.lastLines = List.copyOf(lastLines);
    this.warnings = List.copyOf(warnings);
  }

  /** The final status. */
  public JobStatus status() {
    return status;
  }

  /** The replica that failed, e.g. {@code master-0}. */
  public Optional<String> failedReplica() {
    return Optional.ofNullable(failedReplica);
  }

  /** The failed replica's last log lines. */
  public List<String> lastLines() {
    return lastLines;
  }

  /** Warning events on the job and its pods, oldest first. */
  public List<String> warnings() {
    return warnings;
  }

  /** How the job's kind restarts a failing replica, and how to make it fail sooner. */
  private static String restartHint(String kind) {
    if (kind.equals("TrainJob")) {
      // A TrainJob has no backoffLimit or restartPolicy of its own: its runtime decides.
      return "A node that exits non-zero is restarted until the backoffLimit of its runtime's"
          + " node Job is used up (on torch-distributed the Job default, 6); to fail at the"
          + " first exit, use a runtime whose node Job sets backoffLimit 0 and restartPolicy"
          + " Never";
    }
    return "A replica that exits non-zero is restarted in place; the job fails when the restarts"
        + " of all its replicas together reach .backoffLimit(n) (3 by default);"
        + " .restartPolicy(RestartPolicy.NEVER) fails it at the first exit";
  }

  /**
   * The failed replica's restarts, from its pod in {@code status} (gone pods: unknown), and the
   * job's: {@code " after 2 restarts (3 restarts of all replicas together)"}. Both count the
   * restarts that happened, as the log's runs show them (a restart the job's end called off is
   * not one).
   */
  private static Optional<String> restarts(JobStatus status, Optional<String> replica) {
    Optional<Integer> own = replica.flatMap(r -> status.pods().stream()
        .filter(p -> p.name().endsWith("-" + r) || r.equals(p.replicaType().toLowerCase(
            java.util.Locale.ROOT) + "-" + p.index())).findFirst()).map(PodInfo::restarts);
    int all = status.pods().stream().mapToInt(PodInfo::restarts).sum();
    return own.filter(n -> n > 0 || all > 0).map(n -> " after " + n
        + (n == 1 ? " restart" : " restarts") + (all > n ? " (" + all
            + " restarts of all replicas together)" : ""));
  }

  private static String describe(Optional<String> replica, Optional<Integer> exitCode,
      Optional<String> restarts, String message, List<String> lastLines, List<String> warnings) {
    StringBuilder text = new StringBuilder();
    replica.ifPresent(r -> text.append("replica ").append(r));
    exitCode.ifPresent(c -> text.append(text.length() > 0 ? " " : "").append("exited with code ")
        .append(c));
    restarts.ifPresent(text::append);
    if (message != null && !message.isBlank()) {
      text.append(text.length() > 0 ? ": " : "").append(message);
    }
    if (!warnings.isEmpty()) {
      text.append("\n  events:\n    ").append(String.join("\n    ", warnings));
    }
    if (!lastLines.isEmpty()) {
      text.append("\n  last lines:\n    ").append(String.join("\n    ", lastLines));
    }
    return text.toString();
  }
}

package dev.fairing4j.core;

import dev.fairing4j.core.internal.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Thrown when a job has not finished within the time a caller waited. The job keeps running
 * unless the caller asked to delete or suspend it on timeout; {@link #lastStatus()} says where it
 * stood.
 */
public final class JobTimeoutException extends FairingException {
  private static final long serialVersionUID = 1L;
  private static final int MAX_WHY = 600;

  private final transient JobStatus lastStatus;
  private final Duration timeout;

  /**
   * A job still {@code lastStatus.phase()} after {@code timeout}; {@code action} says what was
   * done with it (null: nothing). The message names the pods that explain it (crash-looping with
   * their last lines, Pending with the scheduler's reason, an image that does not pull) and the
   * newest Warning events; the hint fits the situation: only a job that runs as it should is told
   * to wait longer.
   */
  public JobTimeoutException(JobStatus lastStatus, Duration timeout, String action) {
    super("wait for job", lastStatus.kind() + " " + lastStatus.name(),
        "still " + lastStatus.phase() + " after " + Durations.human(timeout) + stuckPods(lastStatus)
            + events(lastStatus) + (action == null ? "" : "; " + action),
        hint(lastStatus, action == null ? "" : action), null, null, null);
    this.lastStatus = lastStatus;
    this.timeout = timeout;
  }

  /**
   * Why the pods that are not running say they are not, e.g. {@code (mnist-worker-0
   * Unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.)}: a job that never
   * starts does not fail, so a timeout is where a user learns of a missing GPU, a bad image or a
   * script that crashes at every start. The first line of each reason's message, bounded, for at
   * most three pods; a crash loop also says how often it restarted and its last exit code.
   */
  private static String stuckPods(JobStatus status) {
    List<String> stuck = status.pods().stream().filter(p -> p.reason().isPresent()).limit(3)
        .map(p -> {
          String why = p.reason().get() + p.message().map(m -> ": " + m.lines().findFirst()
              .orElse("")).orElse("");
          String restarts = p.restarts() > 0 ? ", restarted " + p.restarts() + " times"
              + p.exitCode().map(c -> ", last exit code " + c).orElse("") : "";
          return p.name() + " " + bounded(why) + restarts;
        }).toList();
    return stuck.isEmpty() ? "" : " (" + String.join("; ", stuck) + ")";
  }

  private static String events(JobStatus status) {
    List<String> newest = status.warnings().stream().limit(3).map(JobTimeoutException::bounded)
        .toList();
    return newest.isEmpty() ? "" : "; events: " + String.join(" | ", newest);
  }

  private static String hint(JobStatus status, String action) {
    Set<String> reasons = status.pods().stream().flatMap(p -> p.reason().stream())
        .collect(java.util.stream.Collectors.toSet());
    boolean crashing = reasons.contains("CrashLoopBackOff") || status.pods().stream()
        .anyMatch(p -> p.restarts() > 0 && p.exitCode().filter(c -> c != 0).isPresent());
    if (crashing) {
      // A TrainJob's restarts are its runtime's (the Job template's backoffLimit).
      return "the script keeps failing and being restarted: its last lines are above (all of"
          + " them: logs()); fix it, and stop endless restarts with "
          + ("TrainJob".equals(status.kind()) ? "a runtime whose Job template sets"
              + " backoffLimit: 0 (a TrainingRuntime of your own)"
              : ".backoffLimit(n) or .restartPolicy(RestartPolicy.NEVER) on the deployer");
    }
    if (status.phase() == JobPhase.QUEUED) {
      return "Kueue has not admitted it yet: " + status.decidingCondition()
          .map(JobCondition::message).filter(m -> !m.isBlank()).orElse("it waits in its queue")
          + "; see 'kubectl get workloads' in its namespace and the ClusterQueue's quota";
    }
    if (reasons.contains("Unschedulable")) {
      return "no node can run the pod: the scheduler's message above says what is missing;"
          + " ask for less (Mutators.resources/gpus) or add capacity";
    }
    if (reasons.contains("ImagePullBackOff") || reasons.contains("ErrImagePull")
        || reasons.contains("InvalidImageName")) {
      return "the node cannot pull the image: check its name and the registry's pull"
          + " credentials (the builder's .credentials(..) give the job an image-pull Secret)";
    }
    if (!reasons.isEmpty()) {
      return "the reason above keeps the job from running: status().toTable() and the events"
          + " explain it";
    }
    if (status.phase() != JobPhase.RUNNING) {
      return "nothing has started yet and no pod says why: read status().toTable() and the"
          + " events (is the " + ("TrainJob".equals(status.kind())
              ? "Trainer (and JobSet) controller" : "Kubeflow operator")
          + " running? is the namespace's quota used up?)";
    }
    // What to do next depends on what the wait did to the job: it may no longer run.
    if (action.startsWith("deleted") || action.contains("stopped")) {
      return "this wait ended it: run it again with a larger timeout, and follow logs() while"
          + " it runs to see why it is slow";
    }
    if (action.startsWith("suspended")) {
      return "this wait suspended it: resume it and wait with a larger timeout, or read"
          + " status() and logs() to see why it is slow";
    }
    return "it is running: wait longer (a larger timeout), or read status() and logs() to see"
        + " why it is slow";
  }

  private static String bounded(String text) {
    return text.length() > MAX_WHY ? text.substring(0, MAX_WHY) + "..." : text;
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

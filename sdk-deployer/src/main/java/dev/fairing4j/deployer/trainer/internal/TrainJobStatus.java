package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ReplicaStatus;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A TrainJob's status in the SDK's terms (CONTRACT.md (d)). The Trainer writes only Suspended,
 * Complete and Failed; so, by the contract's order:
 *
 * <ol>
 *   <li>{@code Failed=True} is Failed (JobSet failures, DeadlineExceeded, an unsupported runtime);
 *   <li>{@code Complete=True} is Succeeded (reported as a {@code Succeeded} condition);
 *   <li>{@code Suspended=True} is Suspended, or Queued when the job carries Kueue's queue label:
 *       Kueue creates such jobs suspended and resumes them on admission (a {@code Queued}
 *       condition is added, saying which queue);
 *   <li>otherwise, the trainer job ({@code node}, or an MPI runtime's {@code launcher}) ready
 *       by the TrainJob's {@code jobsStatus}, or, where that is not reported, every trainer pod
 *       running or done, is Running (a {@code Running} condition is added);
 *   <li>else Pending: no pods yet, or not all of them run (the pods say why).
 * </ol>
 *
 * <p>A JobSet the controller could not create (a name too long for its pods, say) sets no
 * condition at all, only a Warning event on the TrainJob: that job stays Pending, and its status
 * shows the event.
 */
public final class TrainJobStatus {
  /** Kueue's queue label. */
  public static final String KUEUE_QUEUE = "kueue.x-k8s.io/queue-name";

  private TrainJobStatus() {}

  /** The conditions of {@code trainJob} (as read) with the synthesized ones, in that order. */
  public static List<JobCondition> conditions(Map<String, Object> trainJob, List<PodInfo> pods) {
    List<JobCondition> conditions = new ArrayList<>();
    boolean settled = false;
    boolean suspended = false;
    for (Map<String, Object> c : JsonTree.maps(trainJob, "status", "conditions")) {
      String type = text(c.get("type"));
      if (type.isEmpty()) {
        continue;
      }
      JobCondition read = JobCondition.of(type.equals("Complete") ? "Succeeded" : type,
          text(c.get("status")), text(c.get("reason")), text(c.get("message")),
          instant(c.get("lastTransitionTime")).orElse(null));
      conditions.add(read);
      if (read.status()) {
        settled |= read.type().equals("Succeeded") || read.type().equals("Failed");
        suspended |= read.type().equals("Suspended");
      }
    }
    if (settled) {
      return conditions;
    }
    if (suspended) {
      queue(trainJob).ifPresent(queue -> conditions.add(JobCondition.isTrue("Queued",
          "QueuedByKueue", "waiting for admission in Kueue queue " + queue
              + " (the TrainJob stays suspended until Kueue admits it)")));
      return conditions;
    }
    running(trainJob, pods).ifPresent(conditions::add);
    return conditions;
  }

  /** The Kueue queue the job was submitted to, from its label. */
  public static Optional<String> queue(Map<String, Object> trainJob) {
    return Optional.of(text(at(trainJob, "metadata", "labels", KUEUE_QUEUE)))
        .filter(q -> !q.isEmpty());
  }

  private static Optional<JobCondition> running(Map<String, Object> trainJob,
      List<PodInfo> pods) {
    for (Map<String, Object> job : JsonTree.maps(trainJob, "status", "jobsStatus")) {
      String name = text(job.get("name"));
      if (name.equals(TrainJobs.NODE) || name.equals(TrainJobs.LAUNCHER)) {
        if (number(job.get("ready")) + number(job.get("succeeded")) > 0) {
          return Optional.of(JobCondition.isTrue("Running", "TrainerRunning",
              "the " + name + " job's pods are running"));
        }
        return Optional.empty();
      }
    }
    // Not reported (a Trainer before jobsStatus, or not yet): every trainer pod running or done.
    int nodes = Math.max(1, number(at(trainJob, "spec", "trainer", "numNodes")));
    long up = pods.stream().filter(p -> p.replicaType().equals(TrainJobs.NODE))
        .filter(p -> p.phase().equals("Running") || p.phase().equals("Succeeded")).count();
    return up >= nodes ? Optional.of(JobCondition.isTrue("Running", "TrainerRunning",
        up + " of " + nodes + " node pods are running")) : Optional.empty();
  }

  /**
   * Pod counts per replicated job ({@code node}, {@code dataset-initializer}...) from
   * {@code pods}: running, succeeded and failed pods, as the other kinds' replica statuses
   * count them.
   */
  public static Map<String, ReplicaStatus> replicas(List<PodInfo> pods) {
    Map<String, int[]> counts = new LinkedHashMap<>();
    for (PodInfo pod : pods) {
      int[] c = counts.computeIfAbsent(pod.replicaType(), t -> new int[3]);
      switch (pod.phase()) {
        case "Running" -> c[0]++;
        case "Succeeded" -> c[1]++;
        case "Failed" -> c[2]++;
        default -> { }
      }
    }
    Map<String, ReplicaStatus> result = new LinkedHashMap<>();
    counts.forEach((type, c) -> result.put(type, new ReplicaStatus(c[0], c[1], c[2])));
    return result;
  }

  /** When the job ended: the time its Complete or Failed condition turned True. */
  public static Optional<Instant> completionTime(Map<String, Object> trainJob) {
    for (Map<String, Object> c : JsonTree.maps(trainJob, "status", "conditions")) {
      String type = text(c.get("type"));
      if ((type.equals("Complete") || type.equals("Failed"))
          && text(c.get("status")).equalsIgnoreCase("True")) {
        return instant(c.get("lastTransitionTime"));
      }
    }
    return Optional.empty();
  }

  /**
   * What the trainer itself reported in {@code status.trainerStatus} (Trainer v2.3's alpha
   * TrainJobStatus gate): its progress in percent as {@code progress} and each metric whose
   * value is a number, at {@code lastUpdatedTime}; empty where the job reports none.
   *
   * @param time when the trainer reported it
   * @param values metric name to value
   */
  public record TrainerReport(Instant time, Map<String, Double> values) {}

  /** The trainer's own report of {@code trainJob}; see {@link TrainerReport}. */
  public static Optional<TrainerReport> trainerReport(Map<String, Object> trainJob) {
    Object status = at(trainJob, "status", "trainerStatus");
    if (!(status instanceof Map<?, ?>)) {
      return Optional.empty();
    }
    Optional<Instant> time = instant(at(trainJob, "status", "trainerStatus", "lastUpdatedTime"));
    if (time.isEmpty()) {
      return Optional.empty(); // the CRD requires it; without it the values have no place in time
    }
    Map<String, Double> values = new LinkedHashMap<>();
    Object progress = at(trainJob, "status", "trainerStatus", "progressPercentage");
    if (progress instanceof Number n) {
      values.put("progress", n.doubleValue());
    }
    for (Map<String, Object> metric : JsonTree.maps(trainJob, "status", "trainerStatus",
        "metrics")) {
      String name = text(metric.get("name")).strip();
      try {
        // Values are strings by the API ("0.25"); anything that is not a number is no point.
        double value = Double.parseDouble(text(metric.get("value")).strip());
        if (!name.isEmpty() && Double.isFinite(value)) {
          values.put(name, value);
        }
      } catch (NumberFormatException e) {
        // e.g. "n/a"
      }
    }
    return values.isEmpty() ? Optional.empty() : Optional.of(new TrainerReport(time.get(), values));
  }

  /** When the job started: a TrainJob records no start, so its creation. */
  public static Optional<Instant> startTime(Map<String, Object> trainJob) {
    return instant(at(trainJob, "metadata", "creationTimestamp"));
  }

  /** The value at {@code path} in a JSON tree of maps; null where the path does not lead. */
  static Object at(Object root, String... path) {
    return JsonTree.at(root, path).orElse(null);
  }

  private static String text(Object value) {
    return value == null ? "" : String.valueOf(value);
  }

  private static int number(Object value) {
    if (value instanceof Number n) {
      return n.intValue();
    }
    try {
      return value == null ? 0 : Integer.parseInt(String.valueOf(value));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static Optional<Instant> instant(Object value) {
    try {
      return value == null ? Optional.empty() : Optional.of(Instant.parse(String.valueOf(value)));
    } catch (java.time.format.DateTimeParseException e) {
      return Optional.empty();
    }
  }
}

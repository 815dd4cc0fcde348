package dev.fairing4j.deployer.kubernetes.internal.diagnosis;

import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.LastLines;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobKinds;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobReader;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.jobs.PodDiagnosis;
import dev.fairing4j.deployer.kubernetes.internal.jobs.WarningEvents;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Explains a failed job as a {@link JobFailedException}: the replica that failed and its exit code
 * (from the pods), the operator's Failed message, the last log lines of that replica and the
 * Warning events on the job and its pods. Each part is best effort: a part that cannot be read
 * is left out rather than hiding the failure behind a second error.
 */
public final class FailureReport {
  /** How many log lines of the failed replica are attached. */
  public static final int LAST_LINES = LastLines.SHOWN;
  private static final Logger LOG = LoggerFactory.getLogger(FailureReport.class);

  private FailureReport() {}

  /** The exception for {@code status}, of the Failed job {@code object} and its pods. */
  public static JobFailedException explain(KubeRest rest, JobRef job, Map<String, Object> object,
      JobStatus status, List<Map<String, Object>> podObjects) {
    Optional<PodInfo> failed = failedPod(status.pods());
    String message = status.decidingCondition().map(JobCondition::message)
        .filter(m -> !m.isBlank())
        .or(() -> failed.flatMap(p -> p.reason().map(r -> r + p.message().map(m -> ": " + m)
            .orElse(""))))
        .orElse("the job failed");
    List<String> warnings;
    try {
      warnings = WarningEvents.about(rest, job.namespace(), object,
          new JobReader(rest, job).related(object), podObjects, WarningEvents.LIMIT);
    } catch (RuntimeException e) {
      LOG.debug("Could not read the events of {}: {}", job, e.getMessage());
      warnings = List.of();
    }
    // At the backoff limit the operator deletes the pods before it marks the job Failed; its
    // event on the job still names the pod and the exit code.
    Optional<Exited> exited = failed.isPresent() ? Optional.empty()
        : exitedEvent(job, warnings);
    Optional<String> replica = failed.map(PodDiagnosis::shortName)
        .or(() -> exited.map(Exited::replica));
    Optional<Integer> exitCode = failed.isPresent() ? failed.flatMap(PodInfo::exitCode)
        : exited.map(Exited::code);
    List<String> lastLines = failed.map(p -> lastLines(rest, job, p, podObjects))
        .orElse(List.of());
    if (lastLines.isEmpty() && replica.isPresent()) {
      // The log went with the pod; what this JVM followed of it is all that is left.
      lastLines = LogMemory.last(JsonTree.string(object, "metadata", "uid").orElse(""),
          replica.get());
    }
    return new JobFailedException(status, replica, exitCode, message, lastLines, warnings);
  }

  /** A replica's exit, as the operator's ExitedWithCode event on the job tells it. */
  private record Exited(String replica, int code) {}

  private static final java.util.regex.Pattern EXITED = java.util.regex.Pattern.compile(
      "Pod: [^ .]+\\.(\\S+) exited with code (\\d+)");

  private static Optional<Exited> exitedEvent(JobRef job, List<String> warnings) {
    // Newest last: the exit that ended the job.
    for (int i = warnings.size() - 1; i >= 0; i--) {
      java.util.regex.Matcher m = EXITED.matcher(warnings.get(i));
      if (m.find() && m.group(1).startsWith(job.name() + "-")) {
        return Optional.of(new Exited(m.group(1).substring(job.name().length() + 1),
            Integer.parseInt(m.group(2))));
      }
    }
    return Optional.empty();
  }

  /**
   * The replica to blame: a Failed pod or one whose training container exited non-zero, else one
   * stuck for good (ImagePullBackOff, ...); the Master or Chief first, as it decides the job.
   */
  public static Optional<PodInfo> failedPod(List<PodInfo> pods) {
    Comparator<PodInfo> order = Comparator.comparingInt((PodInfo p) ->
        JobKinds.rank(p.replicaType())).thenComparingInt(PodInfo::index);
    Optional<PodInfo> exited = pods.stream()
        .filter(p -> "Failed".equals(p.phase()) || p.exitCode().filter(c -> c != 0).isPresent())
        .min(order);
    return exited.or(() -> pods.stream()
        .filter(p -> p.reason().filter(PodDiagnosis.BAD_WAITING::contains).isPresent()
            || p.reason().filter("Unschedulable"::equals).isPresent())
        .min(order));
  }

  private static List<String> lastLines(KubeRest rest, JobRef job, PodInfo pod,
      List<Map<String, Object>> podObjects) {
    String container = podObjects.stream()
        .filter(p -> pod.name().equals(JsonTree.string(p, "metadata", "name").orElse("")))
        .findFirst().map(p -> PodDiagnosis.trainingContainer(p, job.kind()))
        .orElse(JobKinds.trainingContainer(job.kind()).orElse(""));
    try {
      String text = rest.readLog(job.namespace(), pod.name(), container,
          Optional.of(LastLines.READ), false, Optional.empty());
      return LastLines.of(text.lines().toList());
    } catch (RuntimeException e) {
      LOG.debug("Could not read the log of {}: {}", pod.name(), e.getMessage());
      return List.of();
    }
  }
}

package dev.fairing4j.core;

import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A snapshot of a training job: its conditions, the phase they imply, per-replica counts, timing,
 * and the pods behind it. The phase follows CONTRACT.md's rule (see {@link #phaseOf}); reading the
 * last condition instead is a classic bug, because {@code Running} stays listed (False) after
 * success.
 *
 * @param name the job name
 * @param kind the job kind, e.g. {@code PyTorchJob}, {@code TFJob} or {@code Job}
 * @param conditions the conditions as reported, in the reported order
 * @param replicaStatuses counts per replica type ({@code Master}, {@code Worker}, ...), sorted
 * @param startTime when the job started, once it has
 * @param completionTime when it finished, once it has
 * @param pods the pods (or local processes) of the job, as far as they were read
 * @param warnings what explains a stuck or failing job beyond its conditions: the Warning events
 *     on the job and its pods (e.g. {@code FailedScheduling pod/mnist-worker-0: 0/3 nodes are
 *     available: 3 Insufficient nvidia.com/gpu.}), oldest first; empty when there are none or
 *     they could not be read
 */
public record JobStatus(String name, String kind, List<JobCondition> conditions,
    Map<String, ReplicaStatus> replicaStatuses, Optional<Instant> startTime,
    Optional<Instant> completionTime, List<PodInfo> pods, List<String> warnings)
    implements Displayable {
  /** Copies the collections, so a status never changes after it was read. */
  public JobStatus {
    KernelBridge.install();  // the first displayable value registers the renderer
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    conditions = List.copyOf(conditions);
    replicaStatuses = java.util.Collections.unmodifiableMap(new TreeMap<>(replicaStatuses));
    startTime = startTime == null ? Optional.empty() : startTime;
    completionTime = completionTime == null ? Optional.empty() : completionTime;
    pods = List.copyOf(pods);
    warnings = warnings == null ? List.of() : List.copyOf(warnings);
  }

  /**
   * A status without warnings: what a watch-driven poll reads (it skips the events, which only
   * someone looking at the status needs), and what code written before warnings existed builds.
   */
  public JobStatus(String name, String kind, List<JobCondition> conditions,
      Map<String, ReplicaStatus> replicaStatuses, Optional<Instant> startTime,
      Optional<Instant> completionTime, List<PodInfo> pods) {
    this(name, kind, conditions, replicaStatuses, startTime, completionTime, pods, List.of());
  }

  /**
   * The phase a set of conditions implies: the strongest condition type (Failed > Succeeded >
   * Queued > Suspended > Restarting > Running > Created) whose status is True;
   * {@link JobPhase#PENDING} when none is. Condition types outside these are ignored; so is
   * order.
   */
  public static JobPhase phaseOf(Collection<JobCondition> conditions) {
    for (JobPhase candidate : JobPhase.PRECEDENCE) {
      for (JobCondition condition : conditions) {
        if (condition.status() && condition.type().equals(candidate.conditionType())) {
          return candidate;
        }
      }
    }
    return JobPhase.PENDING;
  }

  /** The phase these conditions imply. */
  public JobPhase phase() {
    return phaseOf(conditions);
  }

  /** The True condition that decided the phase, if any. */
  public Optional<JobCondition> decidingCondition() {
    JobPhase phase = phase();
    return conditions.stream()
        .filter(c -> c.status() && c.type().equals(phase.conditionType()))
        .findFirst();
  }

  /** True once the job succeeded or failed. */
  public boolean isTerminal() {
    return phase().isTerminal();
  }

  /**
   * A readable multi-line description, like {@code kubectl describe} in short: the job and its
   * phase, then its conditions, replica counts, pods and warnings.
   */
  public String toTable() {
    StringBuilder text = new StringBuilder(jobTable().toText());
    for (TextTable section : sections()) {
      if (!section.isEmpty()) {
        text.append("\n\n").append(section.toText());
      }
    }
    return text.toString();
  }

  /** The same as {@link #toTable()}. */
  @Override
  public String toText() {
    return toTable();
  }

  /** The same as {@link #toTable()} as HTML tables, for notebooks. */
  @Override
  public String toHtml() {
    StringBuilder html = new StringBuilder(jobTable().toHtml());
    for (TextTable section : sections()) {
      if (!section.isEmpty()) {
        html.append(section.toHtml());
      }
    }
    return html.toString();
  }

  private List<TextTable> sections() {
    return List.of(conditionTable(), replicaTable(), podTable(), eventTable());
  }

  private TextTable jobTable() {
    return TextTable.of("JOB", "KIND", "PHASE", "STARTED", "DURATION").row(name, kind,
        phase().toString(), startTime.map(t -> t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString()).orElse("-"),
        startTime.map(start -> {
          Duration took = Duration.between(start, completionTime.orElse(Instant.now()));
          return took.toSeconds() + "s" + (completionTime.isPresent() ? "" : " so far");
        }).orElse("-"));
  }

  private TextTable conditionTable() {
    TextTable table = TextTable.of("CONDITION", "STATUS", "REASON", "MESSAGE");
    conditions.forEach(c -> table.row(c.type(), c.status() ? "True" : "False", c.reason(),
        c.message()));
    return table;
  }

  private TextTable replicaTable() {
    TextTable table = TextTable.of("REPLICA", "ACTIVE", "SUCCEEDED", "FAILED");
    replicaStatuses.forEach((type, counts) -> table.row(type, String.valueOf(counts.active()),
        String.valueOf(counts.succeeded()), String.valueOf(counts.failed())));
    return table;
  }

  private TextTable podTable() {
    TextTable table = TextTable.of("POD", "PHASE", "NODE", "RESTARTS", "EXIT", "REASON");
    pods.forEach(pod -> table.row(pod.name(), pod.phase(), pod.node().orElse("-"),
        String.valueOf(pod.restarts()), pod.exitCode().map(String::valueOf).orElse("-"),
        pod.reason().map(r -> r + pod.message().map(m -> ": " + m).orElse("")).orElse("")));
    return table;
  }

  private TextTable eventTable() {
    TextTable table = TextTable.of("EVENTS");
    warnings.forEach(table::row);
    return table;
  }

  /** One line: kind, name, phase, deciding reason and replica counts; no pods or warnings. */
  @Override
  public String toString() {
    // Counts are labelled ("Master: 1 succeeded"), not a bare triple a reader must decode.
    String replicas = replicaStatuses.entrySet().stream()
        .map(e -> e.getKey() + ": " + counts(e.getValue()))
        .collect(Collectors.joining("; "));
    return kind + " " + name + " " + phase()
        + decidingCondition().map(c -> c.reason().isEmpty() ? "" : " (" + c.reason() + ")")
            .orElse("")
        + (replicas.isEmpty() ? "" : ", " + replicas);
  }

  private static String counts(ReplicaStatus counts) {
    List<String> parts = new java.util.ArrayList<>();
    if (counts.active() > 0) {
      parts.add(counts.active() + " active");
    }
    if (counts.succeeded() > 0) {
      parts.add(counts.succeeded() + " succeeded");
    }
    if (counts.failed() > 0) {
      parts.add(counts.failed() + " failed");
    }
    return parts.isEmpty() ? "none yet" : String.join(", ", parts);
  }
}

package dev.fairing4j.core;

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
 */
public record JobStatus(String name, String kind, List<JobCondition> conditions,
    Map<String, ReplicaStatus> replicaStatuses, Optional<Instant> startTime,
    Optional<Instant> completionTime, List<PodInfo> pods) {

  /** Copies the collections, so a status never changes after it was read. */
  public JobStatus {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    conditions = List.copyOf(conditions);
    replicaStatuses = java.util.Collections.unmodifiableMap(new TreeMap<>(replicaStatuses));
    startTime = startTime == null ? Optional.empty() : startTime;
    completionTime = completionTime == null ? Optional.empty() : completionTime;
    pods = List.copyOf(pods);
  }

  /**
   * The phase a set of conditions implies: the strongest condition type (Failed > Succeeded >
   * Suspended > Restarting > Running > Created) whose status is True; {@link JobPhase#PENDING}
   * when none is. Condition types outside the six are ignored; so is order.
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

  @Override
  public String toString() {
    String replicas = replicaStatuses.entrySet().stream()
        .map(e -> e.getKey() + "(" + e.getValue().active() + "/" + e.getValue().succeeded() + "/"
            + e.getValue().failed() + ")")
        .collect(Collectors.joining(" "));
    return kind + " " + name + " " + phase()
        + decidingCondition().map(c -> c.reason().isEmpty() ? "" : " (" + c.reason() + ")")
            .orElse("")
        + (replicas.isEmpty() ? "" : " " + replicas);
  }
}

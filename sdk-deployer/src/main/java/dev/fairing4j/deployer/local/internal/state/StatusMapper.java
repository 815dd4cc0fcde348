package dev.fairing4j.deployer.local.internal.state;

import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ReplicaStatus;
import dev.fairing4j.deployer.local.internal.runtime.ProcessGroups;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a job record into the SDK's {@link JobStatus}, the same type a Kubernetes job reports.
 * When the JVM that supervised the job is gone before the job ended, it says so honestly: each
 * replica shows whether its process still lives, and the job is Failed with a message naming the
 * lost supervisor, since nothing will ever finish it.
 */
public final class StatusMapper {
  /** The reason of a replica whose supervisor is gone. */
  public static final String SUPERVISOR_LOST = "SupervisorLost";
  /** The reason of a replica the job's end stopped (its pod deleted, on a cluster). */
  public static final String STOPPED = "Stopped";
  /** The reason of a replica being stopped, until its processes are gone. */
  public static final String TERMINATING = "Terminating";
  /** At most this many Warning events in a status, the newest, as on Kubernetes. */
  public static final int STATUS_WARNINGS = 10;

  private StatusMapper() {}

  /** The record's conditions as the SDK's type. */
  public static List<JobCondition> conditions(JobRecord record) {
    List<JobCondition> list = new ArrayList<>();
    for (JobRecord.Condition c : record.conditions()) {
      list.add(JobCondition.of(c.type(), c.status(), c.reason(), c.message(),
          instant(c.lastTransitionTime()).orElse(null)));
    }
    return list;
  }

  /**
   * The status of {@code record}.
   *
   * <p>Replica counts follow the operator. A Running replica is active, but once the job has
   * succeeded it counts as succeeded (the operator adds {@code active} to {@code succeeded}
   * then). A replica the job's end stopped (reason {@link #STOPPED}: a pod the operator deletes
   * under cleanPodPolicy Running or All, or at a deadline or the backoff limit) is no longer
   * listed among the pods; it counts as succeeded in a succeeded job and as failed in a failed
   * one. So in a finished job every started replica is counted exactly once; Pending replicas
   * count nowhere, as on the operator.
   *
   * @param supervised whether the job's supervisor still runs
   */
  public static JobStatus toStatus(JobRecord record, boolean supervised) {
    JobRecord current = supervised || record.settled() ? record : orphaned(record);
    List<JobCondition> conditions = conditions(current);
    boolean succeeded = JobStatus.phaseOf(conditions) == JobPhase.SUCCEEDED;
    Map<String, int[]> counts = new LinkedHashMap<>();
    List<PodInfo> pods = new ArrayList<>();
    for (JobRecord.Replica r : current.replicas()) {
      int[] c = counts.computeIfAbsent(r.type(), t -> new int[3]);
      if (!r.created()) {
        continue;
      }
      boolean deleted = isDeleted(r);
      switch (r.phase()) {
        case "Running" -> c[succeeded ? 1 : 0]++;
        case "Succeeded" -> c[1]++;
        case "Failed" -> c[deleted && succeeded ? 1 : 2]++;
        default -> { }
      }
      if (!deleted) {
        pods.add(new PodInfo(r.podName(), r.type(), r.index(), r.phase(),
            Optional.ofNullable(r.node()), Optional.ofNullable(r.reason()),
            Optional.ofNullable(r.message()), r.restarts(), Optional.ofNullable(r.exitCode())));
      }
    }
    Map<String, ReplicaStatus> replicaStatuses = new LinkedHashMap<>();
    counts.forEach((type, c) -> replicaStatuses.put(type, new ReplicaStatus(c[0], c[1], c[2])));
    return new JobStatus(current.name(), current.kind(), conditions, replicaStatuses,
        instant(current.startTime()), instant(current.completionTime()), pods,
        warnings(current, STATUS_WARNINGS));
  }

  /** Whether the job's end stopped the replica: the operator would have deleted its pod. */
  static boolean isDeleted(JobRecord.Replica r) {
    return STOPPED.equals(r.reason()) && r.pid() == null;
  }

  /**
   * The record's Warning events (FailedScheduling, ExitedWithCode, BackOff, ...) as
   * {@code Reason object: message}, oldest first, the newest {@code limit} of them; repeats of
   * the same text are shown once, where they first occurred.
   */
  public static List<String> warnings(JobRecord record, int limit) {
    Set<String> lines = new LinkedHashSet<>();
    for (JobRecord.Event e : record.events()) {
      if ("Warning".equals(e.type())) {
        lines.add(e.reason() + " " + e.object() + ": " + e.message());
      }
    }
    List<String> all = new ArrayList<>(lines);
    return all.subList(Math.max(0, all.size() - limit), all.size());
  }

  private static JobRecord orphaned(JobRecord record) {
    List<JobRecord.Replica> replicas = new ArrayList<>();
    int alive = 0;
    for (JobRecord.Replica r : record.replicas()) {
      if (r.pid() == null) {
        replicas.add(r);
      } else if (alive(r)) {
        alive++;
        replicas.add(new JobRecord.Replica(r.type(), r.index(), r.podName(), r.shortName(),
            r.container(), "Running", SUPERVISOR_LOST, "still running, but "
                + supervisorName(record) + " (pid " + record.supervisorPid() + ") has exited;"
                + " delete() stops it", r.restarts(), r.exitCode(), r.pid(), r.pidStartedAt(),
            r.node(), r.created()));
      } else {
        replicas.add(new JobRecord.Replica(r.type(), r.index(), r.podName(), r.shortName(),
            r.container(), "Unknown", SUPERVISOR_LOST, "its process " + r.pid()
                + " ended with " + supervisorName(record) + " (pid " + record.supervisorPid()
                + "); its exit code is unknown", r.restarts(), r.exitCode(), null, null,
            r.node(), r.created()));
      }
    }
    List<JobRecord.Condition> conditions = new ArrayList<>(record.conditions());
    boolean failed = conditions.stream()
        .anyMatch(c -> c.type().equals("Failed") && c.status().equals("True"));
    if (!failed) {
      String now = Instant.now().toString();
      String message = supervisorName(record) + " of " + record.kind() + " " + record.name()
          + " (pid " + record.supervisorPid() + ") exited before the job ended; "
          + (alive == 0 ? "its replicas ended with it"
              : alive + " replica(s) still run unsupervised; delete() stops them")
          + (record.detached() ? " (its output: " + StateStore.SUPERVISOR_LOG
              + " in the job's state directory)" : "");
      conditions.replaceAll(c -> c.type().equals("Running")
          ? new JobRecord.Condition(c.type(), "False", c.reason(), c.message(),
              c.lastUpdateTime(), c.lastTransitionTime()) : c);
      conditions.add(new JobRecord.Condition("Failed", "True", record.kind() + "Failed",
          message, now, now));
    }
    return new JobRecord(record.version(), record.kind(), record.name(), record.namespace(),
        record.createdAt(), record.supervisorPid(), record.supervisorStartedAt(),
        record.sandbox(), record.manifest(), record.ports(), conditions, record.startTime(),
        record.completionTime(), alive == 0, replicas, record.events(), record.detached());
  }

  private static String supervisorName(JobRecord record) {
    return record.detached() ? "the supervisor process" : "the JVM that supervised it";
  }

  private static boolean alive(JobRecord.Replica r) {
    return r.pid() != null && ProcessGroups.isAlive(r.pid(), instant(r.pidStartedAt()));
  }

  public static Optional<Instant> instant(String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(text));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}

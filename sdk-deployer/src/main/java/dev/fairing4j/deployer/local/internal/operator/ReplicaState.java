package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.runtime.ReplicaProcess;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import java.util.concurrent.ScheduledFuture;

/**
 * The supervisor's mutable view of one replica, touched only on the supervisor's thread.
 */
final class ReplicaState {
  final ReplicaId id;
  final JobPlan.Group group;
  String phase = "Pending";
  String reason;
  String message;
  int restarts;
  Integer exitCode;
  boolean created;
  int attempt;
  boolean stopRequested;
  ReplicaProcess process;
  ScheduledFuture<?> pendingStart;

  ReplicaState(ReplicaId id, JobPlan.Group group) {
    this.id = id;
    this.group = group;
  }

  boolean isRunning() {
    return process != null;
  }

  JobRecord.Replica toRecord(String node) {
    ReplicaProcess p = process;
    return new JobRecord.Replica(id.type(), id.index(), id.podName(), id.shortName(),
        id.container(), phase, reason, message, restarts, exitCode,
        p == null ? null : p.pid(), p == null ? null : p.started().toString(), node, created);
  }
}

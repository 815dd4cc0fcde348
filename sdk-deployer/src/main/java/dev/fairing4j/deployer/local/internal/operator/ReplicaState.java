package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import dev.fairing4j.deployer.local.internal.state.JobRecord;

/**
 * The operator's mutable view of one replica ({@link JobMachine}), touched only on the
 * supervisor's thread.
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
  /** The replica's process while it runs; null otherwise. */
  MachineEffects.Started running;
  /** Its restart, while one waits out a back-off. */
  MachineEffects.Timer pendingStart;

  ReplicaState(ReplicaId id, JobPlan.Group group) {
    this.id = id;
    this.group = group;
  }

  boolean isRunning() {
    return running != null;
  }

  JobRecord.Replica toRecord(String node) {
    MachineEffects.Started p = running;
    return new JobRecord.Replica(id.type(), id.index(), id.podName(), id.shortName(),
        id.container(), phase, reason, message, restarts, exitCode,
        p == null ? null : p.pid(), p == null ? null : p.at().toString(), node, created);
  }
}

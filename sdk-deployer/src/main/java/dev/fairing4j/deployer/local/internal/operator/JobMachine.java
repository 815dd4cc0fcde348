package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.LocalKind;
import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StatusMapper;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The local operator's decisions for one job, as a state machine: which replicas start, what an
 * exit means under the restart policy and the backoff limit, when the success rules end the job,
 * what the clean-pod policy stops, and what a deadline, a stop request or a deletion does. Its
 * inputs are the calls below; what it wants done (start, signal or clean up a process, run
 * something later) goes through {@link MachineEffects}, and its state comes out as a
 * {@link JobRecord}. It starts no process, thread or timer and reads no file or clock itself, so
 * every rule is testable in microseconds ({@code JobMachineTest}). Not thread-safe: one thread
 * drives it ({@link JobSupervisor}'s).
 */
final class JobMachine {
  private static final int MAX_EVENTS = 200;
  private static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

  private final JobPlan plan;
  private final MachineEffects effects;
  private final Instant created;
  private final Map<String, ReplicaState> replicas = new LinkedHashMap<>();
  private final ConditionList conditions = new ConditionList();
  private final List<JobRecord.Event> events = new ArrayList<>();

  private int retries;
  private String failureMessage;
  private Instant startTime;
  private Instant completionTime;
  private boolean terminal;
  private boolean deadlineExceeded;
  private MachineEffects.Timer deadline;
  private boolean settled;
  private boolean deleted;

  /** The machine of {@code plan}, submitted at {@code created}; nothing happens until begin. */
  JobMachine(JobPlan plan, Instant created, MachineEffects effects) {
    this.plan = plan;
    this.created = created;
    this.effects = effects;
    for (ReplicaId id : plan.replicas()) {
      replicas.put(id.podName(), new ReplicaState(id, plan.group(id.type()).orElseThrow()));
    }
  }

  /**
   * Starts the job: the Created condition, the deadline, and the replicas (a batch Job's first
   * {@code parallelism}); one that requests more GPUs than {@code gpusAvailable} stays Pending
   * as Unschedulable unless {@code ignoreGpus}.
   *
   * @param gpus the GPUs each replica requests, by pod name
   */
  void begin(int gpusAvailable, boolean ignoreGpus, Map<String, Long> gpus) {
    Instant now = effects.now();
    startTime = now;
    if (plan.kind() != LocalKind.TRAINJOB) {
      // The Trainer writes no Created condition: a TrainJob is Pending until its pods run.
      conditions.set("Created", true, reason("Created"), jobLabel() + " is created.", created);
    }
    plan.activeDeadlineSeconds().ifPresent(seconds ->
        deadline = effects.schedule(Duration.ofSeconds(seconds), this::expire));
    int slots = plan.batch().map(JobPlan.Batch::parallelism).orElse(Integer.MAX_VALUE);
    for (ReplicaState r : replicas.values()) {
      if (slots <= 0) {
        break;
      }
      slots--;
      long requested = gpus.getOrDefault(r.id.podName(), 0L);
      if (requested > gpusAvailable && !ignoreGpus) {
        r.created = true;
        r.reason = "Unschedulable";
        r.message = "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. " + r.id.podName()
            + " requests " + requested + " nvidia.com/gpu and this machine has " + gpusAvailable
            + " NVIDIA GPU" + (gpusAvailable == 1 ? "" : "s")
            + "; LocalCluster.ignoreGpuRequests() runs it anyway (on the CPU)";
        event("Warning", "FailedScheduling", r.id.podName(), r.message);
      } else {
        launch(r);
      }
    }
    updateRunning();
  }

  /**
   * Run {@code attempt} of {@code pod} exited with {@code code}. False when that run is no
   * longer the replica's current one (nothing changed).
   */
  boolean exited(String pod, int attempt, int code) {
    ReplicaState r = replicas.get(pod);
    if (r == null || attempt != r.attempt) {
      return false;
    }
    r.running = null;
    r.exitCode = code;
    if (r.stopRequested || deleted || effects.deleting()) {
      effects.removeLeftovers(r.id.podName());
      r.phase = code == 0 ? "Succeeded" : "Failed";
      String why = r.message == null ? "stopped because the job ended" : r.message;
      r.reason = StatusMapper.STOPPED;
      r.message = why + " (exit code " + code + ")";
      if (!deleted && !r.stopRequested) {
        delete();
        return true;
      }
      settleIfDone();
      return true;
    }
    if (terminal) {
      // Left running by a clean-pod policy of None: it ends on its own and is not restarted
      // (kubelet would restart an OnFailure container in place, for as long as the pod lives).
      r.phase = code == 0 ? "Succeeded" : "Failed";
      r.reason = code == 0 ? "Completed" : "Error";
      r.message = code == 0 ? null : "exited with code " + code
          + " after the job ended; not restarted";
      if (code != 0) {
        event("Warning", "ExitedWithCode", r.id.podName(),
            r.id.container() + " exited with code " + code);
      }
      settleIfDone();
      return true;
    }
    ExitRules.Decision decision = ExitRules.onExit(plan, r.group.restartPolicy(), code, retries,
        r.restarts);
    if (code != 0) {
      event("Warning", "ExitedWithCode", r.id.podName(),
          r.id.container() + " exited with code " + code);
    }
    boolean restarting = decision instanceof ExitRules.Restart;
    if (decision instanceof ExitRules.Completed) {
      r.phase = "Succeeded";
      r.reason = "Completed";
      r.message = null;
    } else if (decision instanceof ExitRules.Restart restart) {
      // The backoff limit counts the restart now; the pod's restart count when it happens, as
      // kubelet counts it: a restart the job's end calls off is not one the log shows.
      retries++;
      restart(r, restart);
    } else if (decision instanceof ExitRules.Failed failed) {
      r.phase = "Failed";
      r.reason = "Error";
      r.message = "exited with code " + code;
      failed.jobFailure().ifPresent(message -> failureMessage = message);
    }
    decide();
    if (!restarting) {
      updateRunning();
    }
    return true;
  }

  /**
   * Fails the job with {@code message} (a stop request) unless it already ended, and stops its
   * processes, those a clean-pod policy of None left running included.
   */
  void stop(String message) {
    failAndStop("Stopped", message, "stopped: " + message);
  }

  /** Deleted, here or from another process: stop everything; nothing more is recorded. */
  void delete() {
    deleted = true;
    terminal = true;
    stopRunning(true, "stopped because the job was deleted");
    settleIfDone();
  }

  /**
   * The job's supervision failed ({@code error}): its state can no longer be trusted, so the job
   * fails and its processes stop, whatever the clean-pod policy.
   */
  void supervisorFailed(Throwable error) {
    failAndStop("SupervisorError", jobLabel() + " has failed because its local supervisor"
        + " failed: " + error, "stopped because the local supervisor failed: " + error);
  }

  /**
   * Fails the job with {@code message} (event {@code reason}) unless it already ended, and
   * stops every process either way: once over, only replicas a clean-pod policy of None left
   * running remain, and they stop saying {@code afterEnd}.
   */
  private void failAndStop(String reason, String message, String afterEnd) {
    if (!terminal) {
      failureMessage = message;
      event("Warning", reason, plan.name(), message);
      finish(JobPhase.FAILED, message, true);
    } else {
      stopRunning(true, afterEnd);
      settleIfDone();
    }
  }

  /** Whether the job is over and none of its processes runs or waits to restart. */
  boolean isSettled() {
    return settled;
  }

  /** Whether the job was deleted. */
  boolean isDeleted() {
    return deleted;
  }

  /** The replica of {@code pod}; for tests and the record. */
  Optional<ReplicaState> replica(String pod) {
    return Optional.ofNullable(replicas.get(pod));
  }

  /**
   * How long a stopped replica gets between SIGTERM and SIGKILL: the longest
   * {@code terminationGracePeriodSeconds}, capped at 5 s. A cluster waits up to 30 s by default,
   * but a local user waiting on delete() should not, and training scripts rarely need more.
   */
  Duration grace() {
    return plan.groups().stream().map(g -> g.pod().terminationGraceSeconds())
        .flatMap(Optional::stream).max(Long::compare).map(Duration::ofSeconds)
        .map(d -> d.compareTo(DEFAULT_GRACE) > 0 ? DEFAULT_GRACE : d).orElse(DEFAULT_GRACE);
  }

  /** The job's state as its record says it, written by the supervisor {@code supervisor}. */
  JobRecord record(String node, ProcessHandle supervisor, String sandbox,
      Map<String, Map<Integer, Integer>> ports, boolean detached) {
    List<JobRecord.Replica> list = new ArrayList<>();
    replicas.values().forEach(r -> list.add(r.toRecord(node)));
    return new JobRecord(JobRecord.VERSION, plan.kind().kind(), plan.name(), plan.namespace(),
        created.toString(), supervisor.pid(),
        supervisor.info().startInstant().map(Instant::toString).orElse(null), sandbox,
        plan.objects(), ports, conditions.list(),
        startTime == null ? null : startTime.toString(),
        completionTime == null ? null : completionTime.toString(), settled, list,
        List.copyOf(events), detached);
  }

  private void launch(ReplicaState r) {
    r.pendingStart = null;
    if (terminal || effects.deleting()) {
      return;
    }
    int attempt = ++r.attempt;
    if (!r.created) {
      // as the operator records it, on the job
      event("Normal", "SuccessfulCreatePod", plan.name(), "Created pod: " + r.id.podName());
    }
    r.created = true;
    try {
      r.running = effects.launch(r.id, attempt);
      r.phase = "Running";
      r.reason = null;
      r.message = null;
      event("Normal", "Started", r.id.podName(), "Started container " + r.id.container()
          + " (pid " + r.running.pid() + ")");
    } catch (IOException e) {
      r.phase = "Failed";
      r.reason = "StartError";
      r.message = e.getMessage();
      event("Warning", "Failed", r.id.podName(), "cannot start: " + e.getMessage());
      decide();
    }
  }

  private void restart(ReplicaState r, ExitRules.Restart restart) {
    if (restart.newPod()) {
      // ExitCode: the operator recreates the pod at once and reports the job Restarting.
      r.phase = "Pending";
      r.reason = "Restarting";
      r.message = "recreated after exit code " + r.exitCode;
      conditions.set("Restarting", true, reason("Restarting"), jobLabel() + " is restarting"
          + " because 1 " + r.id.type() + " replica(s) failed.", effects.now());
      event("Warning", "Restarting", r.id.podName(), "recreating the pod after exit code "
          + r.exitCode + " (restart " + (r.restarts + 1) + ")");
    } else {
      // OnFailure/Always: kubelet restarts the container in place after its back-off.
      r.phase = plan.kind() == LocalKind.BATCH ? "Pending" : "Running";
      r.reason = "CrashLoopBackOff";
      r.message = "back-off " + restart.delay().toMillis() + "ms restarting failed container";
      event("Warning", "BackOff", r.id.podName(), r.message);
    }
    r.pendingStart = effects.schedule(restart.delay(), () -> {
      r.restarts++;
      launch(r);
      updateRunning();
    });
  }

  private void decide() {
    if (terminal) {
      return;
    }
    Optional<JobRules.Outcome> outcome = JobRules.evaluate(plan, replicas.values());
    if (outcome.isPresent()) {
      // The backoff limit, like a deadline, makes the operator delete every pod; an outcome of
      // the success rules leaves the pods to the clean-pod policy.
      boolean limit = outcome.get().phase() == JobPhase.FAILED && failureMessage != null;
      finish(outcome.get().phase(), limit ? failureMessage : outcome.get().message(), limit);
    } else if (plan.batch().isPresent()) {
      startNextIndexes();
    }
  }

  private void startNextIndexes() {
    long active = replicas.values().stream().filter(r -> r.created
        && !r.phase.equals("Succeeded") && !r.phase.equals("Failed")).count();
    int parallelism = plan.batch().orElseThrow().parallelism();
    for (ReplicaState r : replicas.values()) {
      if (active >= parallelism) {
        return;
      }
      if (!r.created) {
        launch(r);
        active++;
      }
    }
  }

  /**
   * Ends the job. {@code everything}: a deadline, the backoff limit, a stop or a supervisor
   * failure, after which the operator deletes every pod; otherwise the job's own rules ended it
   * and the clean-pod policy says what stops (None: nothing, the rest may finish).
   */
  private void finish(JobPhase phase, String message, boolean everything) {
    terminal = true;
    Instant now = effects.now();
    completionTime = now;
    conditions.set(phase.conditionType(), true, reason(phase.conditionType()), message, now);
    event(phase == JobPhase.FAILED ? "Warning" : "Normal", reason(phase.conditionType()),
        plan.name(), message);
    EndRules.Ending ending = EndRules.onEnd(plan, phase == JobPhase.SUCCEEDED, message,
        everything);
    stopRunning(ending.stopRunning(), ending.why());
    if (ending.deleteFinished()) {
      for (ReplicaState r : replicas.values()) {
        if (!r.isRunning() && (r.phase.equals("Succeeded") || r.phase.equals("Failed"))) {
          r.reason = StatusMapper.STOPPED;
          r.message = r.exitCode == null ? ending.why()
              : ending.why() + " (it had exited with code " + r.exitCode + ")";
        }
      }
    }
    settleIfDone();
  }

  /**
   * Calls off pending restarts (nothing restarts once the job is over) and, when
   * {@code stopProcesses}, stops every replica still running: SIGTERM now, SIGKILL after the
   * grace period.
   */
  private void stopRunning(boolean stopProcesses, String why) {
    if (deadline != null) {
      deadline.cancel();
    }
    boolean any = false;
    for (ReplicaState r : replicas.values()) {
      if (r.pendingStart != null) {
        r.pendingStart.cancel();
        r.pendingStart = null;
        // An exited replica keeps its pod and its exit, whatever ended the job: a failed job's
        // table listed the Worker but not the Master whose restart was pending (only
        // cleanPodPolicy All deletes finished pods).
        endWithoutRestart(r, plan.cleanPodPolicy() == CleanPodPolicy.ALL, why);
      }
      if (!stopProcesses) {
        continue;
      }
      if (r.isRunning() && !r.stopRequested) {
        r.stopRequested = true;
        r.reason = StatusMapper.TERMINATING;
        r.message = why;
        effects.terminate(r.id.podName());
        any = true;
      } else if (!r.isRunning() && r.created && r.phase.equals("Pending")) {
        // never scheduled (Unschedulable): its pod goes too
        r.reason = StatusMapper.STOPPED;
        r.message = why;
      }
    }
    if (any) {
      effects.schedule(grace(), () -> replicas.values().stream()
          .filter(r -> r.isRunning() && r.stopRequested)
          .forEach(r -> effects.kill(r.id.podName())));
    }
  }

  /** A replica whose restart was pending when the job ended keeps its last exit. */
  private void endWithoutRestart(ReplicaState r, boolean podDeleted, String why) {
    int code = r.exitCode == null ? -1 : r.exitCode;
    r.phase = code == 0 ? "Succeeded" : "Failed";
    r.reason = podDeleted ? StatusMapper.STOPPED : "Error";
    r.message = podDeleted ? why + " (it had exited with code " + code + ")"
        : "exited with code " + code + "; not restarted: the job had ended";
  }

  private void expire() {
    if (!terminal) {
      deadlineExceeded = true;
      failureMessage = ExitRules.deadlineMessage(plan);
      finish(JobPhase.FAILED, failureMessage, true);
    }
  }

  private void settleIfDone() {
    if (terminal && replicas.values().stream()
        .noneMatch(r -> r.isRunning() || r.pendingStart != null)) {
      settled = true;
    }
  }

  private void updateRunning() {
    if (!terminal && replicas.values().stream().anyMatch(ReplicaState::isRunning)) {
      conditions.set("Running", true, reason("Running"), plan.kind() == LocalKind.TRAINJOB
          ? "the node job's pods are running" : jobLabel() + " is running.", effects.now());
    }
  }

  private void event(String type, String reason, String object, String message) {
    events.add(new JobRecord.Event(type, reason, object, message, effects.now().toString()));
    if (events.size() > MAX_EVENTS) {
      events.remove(0);
    }
  }

  private String reason(String type) {
    if (plan.kind() == LocalKind.TRAINJOB) {
      // The reasons a TrainJob's status shows on a cluster (CONTRACT.md (d)).
      return switch (type) {
        case "Running" -> "TrainerRunning";
        case "Succeeded" -> "AllJobsCompleted";
        case "Failed" -> deadlineExceeded ? "DeadlineExceeded" : "FailedJobs";
        default -> type;
      };
    }
    return plan.kind().kind() + type;
  }

  private String jobLabel() {
    return plan.kind().kind() + " " + plan.name();
  }
}

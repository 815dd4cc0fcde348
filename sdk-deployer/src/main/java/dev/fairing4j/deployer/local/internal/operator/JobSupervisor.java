package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;
import dev.fairing4j.deployer.local.internal.runtime.ContainerCleanup;
import dev.fairing4j.deployer.local.internal.runtime.HostFacts;
import dev.fairing4j.deployer.local.internal.runtime.LogFormat;
import dev.fairing4j.deployer.local.internal.runtime.ReplicaLauncher;
import dev.fairing4j.deployer.local.internal.runtime.ReplicaProcess;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.PhaseReporter;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.local.internal.state.StatusMapper;
import dev.fairing4j.deployer.local.internal.state.SupervisorLock;
import dev.fairing4j.deployer.local.internal.supervisor.SupervisorMain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local stand-in for the training operator's controller, for one job: starts the replicas,
 * hears them exit, applies the restart policy and backoff limit, decides success or failure by
 * the operator's rules, stops what the clean-pod policy says, and writes every change to the
 * state directory.
 *
 * <p>It runs either in a supervisor process of the job's own ({@link SupervisorMain}), so the job
 * outlives the JVM that submitted it, or in that JVM ({@code LocalCluster.tiedToJvm()}, and every
 * podman job). Either way it is the only writer of the job's record: it holds the job's
 * {@link SupervisorLock} from its first write to its last, and learns of deletions and stop
 * requests from other processes through the control files it polls.
 *
 * <p>All state changes happen on one thread per job, in order, so the rules never see a half
 * applied change. A task that fails fails the job and stops its processes: a job whose
 * supervisor cannot do its work must not look healthy. The thread ends once the job is over and
 * no process is left.
 */
public final class JobSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(JobSupervisor.class);
  private static final int MAX_EVENTS = 200;
  private static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);
  private static final long CONTROL_MILLIS = 100;
  private static final int WRITE_ATTEMPTS = 3;

  private final JobPlan plan;
  private final Path jobDir;
  private final StateStore store;
  private final ReplicaLauncher launcher;
  private final Map<String, PreparedReplica> prepared;
  private final JobPorts ports;
  private final int gpusAvailable;
  private final boolean ignoreGpus;
  private final boolean detached;
  private final PhaseReporter phases;
  private final Instant created;
  private final String node = HostFacts.hostName();
  private final ProcessHandle self = ProcessHandle.current();
  private final ScheduledExecutorService loop;
  private final Map<String, ReplicaState> replicas = new LinkedHashMap<>();
  private final ConditionList conditions = new ConditionList();
  private final List<JobRecord.Event> events = new ArrayList<>();
  private final Object changed = new Object();
  private final CountDownLatch released = new CountDownLatch(1);

  private SupervisorLock lock;
  private int retries;
  private String failureMessage;
  private Instant startTime;
  private Instant completionTime;
  private boolean terminal;
  private boolean finishedUp;
  private boolean deadlineExceeded;
  private ScheduledFuture<?> deadline;
  private volatile JobRecord snapshot;
  private volatile boolean settled;
  private volatile boolean deleted;

  /**
   * A supervisor for {@code plan}, whose replicas are {@code prepared} (by pod name).
   *
   * @param gpusAvailable NVIDIA GPUs on this machine
   * @param ignoreGpus run replicas that request GPUs anyway
   * @param detached whether this runs in a supervisor process of the job's own
   * @param created when the job was submitted
   */
  public JobSupervisor(JobPlan plan, Path jobDir, StateStore store, ReplicaLauncher launcher,
      Map<String, PreparedReplica> prepared, JobPorts ports, int gpusAvailable,
      boolean ignoreGpus, boolean detached, Instant created, ProgressListener progress) {
    this.plan = plan;
    this.jobDir = jobDir;
    this.store = store;
    this.launcher = launcher;
    this.prepared = Map.copyOf(prepared);
    this.ports = ports;
    this.gpusAvailable = gpusAvailable;
    this.ignoreGpus = ignoreGpus;
    this.detached = detached;
    this.created = created;
    this.phases = new PhaseReporter(plan.name(), progress);
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "fairing4j-local-" + plan.namespace() + "-" + plan.name());
      t.setDaemon(true);
      return t;
    });
    // Once the job has settled, a pending SIGKILL or restart has nothing left to act on.
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    executor.setRemoveOnCancelPolicy(true);
    this.loop = executor;
    for (ReplicaId id : plan.replicas()) {
      replicas.put(id.podName(), new ReplicaState(id, plan.group(id.type()).orElseThrow()));
    }
  }

  /**
   * The record a job has before its supervisor runs: Created, every replica Pending. The
   * submitter writes it, so the job can be listed and attached to the moment submit returns.
   */
  public static JobRecord initialRecord(JobPlan plan, JobPorts ports, String sandbox,
      ProcessHandle supervisor, Instant created) {
    ConditionList conditions = new ConditionList();
    if (plan.kind() != LocalKind.TRAINJOB) {
      conditions.set("Created", true, plan.kind().kind() + "Created",
          plan.kind().kind() + " " + plan.name() + " is created.", created);
    }
    String node = HostFacts.hostName();
    List<JobRecord.Replica> list = new ArrayList<>();
    for (ReplicaId id : plan.replicas()) {
      list.add(new ReplicaState(id, plan.group(id.type()).orElseThrow()).toRecord(node));
    }
    return new JobRecord(JobRecord.VERSION, plan.kind().kind(), plan.name(), plan.namespace(),
        created.toString(), supervisor.pid(),
        supervisor.info().startInstant().map(Instant::toString).orElse(null), sandbox,
        plan.objects(), ports.byPod(), conditions.list(), null, null, false, list, List.of(),
        true);
  }

  /**
   * Takes the job's lock and starts it; returns once its replicas are started (or known
   * unschedulable).
   *
   * @throws dev.fairing4j.core.FairingException when another process supervises the job, or the
   *     start itself failed (the job is then Failed and nothing of it runs)
   */
  public void start() {
    lock = SupervisorLock.acquire(jobDir);
    try {
      loop.submit(this::begin).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      run(() -> abort(e.getCause()));
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
  }

  /** The latest record; empty once the job was deleted. */
  public Optional<JobRecord> record() {
    return deleted ? Optional.empty() : Optional.ofNullable(snapshot);
  }

  /** Whether the job is over and none of its processes is left. */
  public boolean isSettled() {
    return settled;
  }

  /** Waits until this supervisor has let go of the job (settled, or deleted). */
  public void awaitReleased() throws InterruptedException {
    released.await();
  }

  /** Waits up to {@code timeout} for the next change. */
  public void awaitChange(Duration timeout) throws InterruptedException {
    synchronized (changed) {
      if (!settled) {
        changed.wait(Math.max(1, timeout.toMillis()));
      }
    }
  }

  /** Waits until the job is settled; true if it settled within {@code timeout}. */
  public boolean awaitSettled(Duration timeout) {
    Instant end = Instant.now().plus(timeout);
    while (!settled) {
      Duration left = Duration.between(Instant.now(), end);
      if (left.isNegative() || left.isZero()) {
        return false;
      }
      try {
        awaitChange(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return settled;
      }
    }
    return true;
  }

  /**
   * Fails the job with {@code message} (unless it already ended) and stops its processes, those
   * a clean-pod policy of None left running included; returns once they are gone.
   */
  public void stop(String message) {
    run(() -> stopOnRequest(message));
    awaitStopped();
  }

  /** Stops every process, then removes the job from the state directory. */
  public void delete() {
    store.markDeleting(jobDir);
    run(this::onDeleted);
    awaitStopped();
    deleted = true;
    LiveJobs.remove(jobDir);
    // whatever runs outside the job's process groups (a podman job's containers)
    ContainerCleanup.run(jobDir);
    store.remove(jobDir);
  }

  /** The pids of every live process of the job and its descendants. */
  public List<Long> processTree() {
    List<Long> pids = new ArrayList<>();
    run(() -> replicas.values().stream().filter(ReplicaState::isRunning)
        .forEach(r -> pids.addAll(r.process.tree())));
    return pids;
  }

  private void awaitStopped() {
    if (!awaitSettled(grace().plusSeconds(15))) {
      // Something ignored SIGKILL's aftermath for too long; kill again and stop waiting on it.
      run(() -> replicas.values().stream().filter(ReplicaState::isRunning)
          .forEach(r -> r.process.kill()));
      awaitSettled(Duration.ofSeconds(5));
    }
  }

  private void run(Runnable task) {
    try {
      loop.submit(guard(task)).get();
    } catch (RejectedExecutionException | CancellationException e) {
      // the job settled and its thread ended (or shut down with the task still queued, which
      // cancels it): there is nothing left to change
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // guard() handles every failure of the task itself
      LOG.error("local job {}: supervisor task failed", plan.name(), e.getCause());
    }
  }

  private void post(Runnable task) {
    try {
      loop.execute(guard(task));
    } catch (RejectedExecutionException e) {
      // settled: late callbacks have nothing to change
    }
  }

  /** Runs {@code task}; a failure fails the job instead of leaving it half changed. */
  private Runnable guard(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        abort(e);
      }
    };
  }

  /**
   * A supervisor task failed: the job's state can no longer be trusted, so the job fails and its
   * processes stop, whatever the clean-pod policy. Never throws.
   */
  private void abort(Throwable e) {
    LOG.error("local job {}: supervisor task failed; failing the job", plan.name(), e);
    if (detached) {
      // the supervisor's output is supervisor.log, where a user looks when the status says so
      e.printStackTrace();
    }
    String message = jobLabel() + " has failed because its local supervisor failed: " + e;
    try {
      if (!terminal) {
        failureMessage = message;
        event("Warning", "SupervisorError", plan.name(), message);
        finish(JobPhase.FAILED, message, true);
      } else {
        stopRunning(true, "stopped because the local supervisor failed: " + e);
        settleIfDone();
      }
      publish(false);
    } catch (RuntimeException | Error again) {
      LOG.error("local job {}: cannot fail the job cleanly; killing its processes", plan.name(),
          again);
      // Last resort: no process may outlive a supervisor that can no longer supervise it.
      replicas.values().stream().filter(ReplicaState::isRunning).forEach(r -> r.process.kill());
    }
  }

  private void begin() {
    Instant now = Instant.now();
    startTime = now;
    if (plan.kind() != LocalKind.TRAINJOB) {
      // The Trainer writes no Created condition: a TrainJob is Pending until its pods run.
      conditions.set("Created", true, reason("Created"), jobLabel() + " is created.", created);
    }
    plan.activeDeadlineSeconds().ifPresent(seconds ->
        deadline = loop.schedule(guard(this::expire), seconds, TimeUnit.SECONDS));
    loop.scheduleWithFixedDelay(guard(this::checkControl), CONTROL_MILLIS, CONTROL_MILLIS,
        TimeUnit.MILLISECONDS);
    int slots = plan.batch().map(JobPlan.Batch::parallelism).orElse(Integer.MAX_VALUE);
    for (ReplicaState r : replicas.values()) {
      if (slots <= 0) {
        break;
      }
      slots--;
      long gpus = prepared.get(r.id.podName()).gpus();
      if (gpus > gpusAvailable && !ignoreGpus) {
        r.created = true;
        r.reason = "Unschedulable";
        r.message = "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. " + r.id.podName()
            + " requests " + gpus + " nvidia.com/gpu and this machine has " + gpusAvailable
            + " NVIDIA GPU" + (gpusAvailable == 1 ? "" : "s")
            + "; LocalCluster.ignoreGpuRequests() runs it anyway (on the CPU)";
        event("Warning", "FailedScheduling", r.id.podName(), r.message);
      } else {
        launch(r);
      }
    }
    updateRunning();
    publish(true);
  }

  /** Acts on what other processes asked through the job's control files. */
  private void checkControl() {
    if (finishedUp || deleted) {
      return;
    }
    if (lock.isStale() || StateStore.isDeleting(jobDir)) {
      onDeleted();
      return;
    }
    store.takeStopRequest(jobDir).ifPresent(this::stopOnRequest);
  }

  private void stopOnRequest(String message) {
    if (!terminal) {
      failureMessage = message;
      event("Warning", "Stopped", plan.name(), message);
      finish(JobPhase.FAILED, message, true);
    } else {
      // Over already, with replicas a clean-pod policy of None left running: stop those.
      stopRunning(true, "stopped: " + message);
      settleIfDone();
    }
    publish(true);
  }

  /** Deleted, here or from another process: stop everything and write nothing more. */
  private void onDeleted() {
    deleted = true;
    terminal = true;
    stopRunning(true, "stopped because the job was deleted");
    settleIfDone();
    publish(true);
  }

  private void launch(ReplicaState r) {
    r.pendingStart = null;
    if (terminal || StateStore.isDeleting(jobDir)) {
      return;
    }
    PreparedReplica p = prepared.get(r.id.podName());
    int attempt = ++r.attempt;
    r.created = true;
    try {
      if (attempt > 1) {
        // Where this run's lines start in the replica's one log, for the failure report.
        Files.writeString(StateStore.logFile(jobDir, r.id.shortName()),
            LogFormat.runMarker(attempt), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      }
      r.process = ReplicaProcess.start(r.id.podName(), p.command(), p.directory(), p.env(),
          StateStore.logFile(jobDir, r.id.shortName()), launcher,
          code -> post(() -> exited(r, attempt, code)));
      r.phase = "Running";
      r.reason = null;
      r.message = null;
      event("Normal", "Started", r.id.podName(), "Started container " + r.id.container()
          + " (pid " + r.process.pid() + ")");
    } catch (IOException e) {
      r.phase = "Failed";
      r.reason = "StartError";
      r.message = e.getMessage();
      event("Warning", "Failed", r.id.podName(), "cannot start: " + e.getMessage());
      decide();
    }
  }

  private void exited(ReplicaState r, int attempt, int code) {
    if (attempt != r.attempt) {
      return;
    }
    r.process = null;
    r.exitCode = code;
    if (r.stopRequested || deleted || StateStore.isDeleting(jobDir)) {
      launcher.removeLeftovers(r.id.podName());
      r.phase = code == 0 ? "Succeeded" : "Failed";
      String why = r.message == null ? "stopped because the job ended" : r.message;
      r.reason = StatusMapper.STOPPED;
      r.message = why + " (exit code " + code + ")";
      if (!deleted && !r.stopRequested) {
        onDeleted();
        return;
      }
      settleIfDone();
      publish(true);
      return;
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
      publish(true);
      return;
    }
    RestartPolicy policy = r.group.restartPolicy();
    ExitRules.Decision decision = ExitRules.onExit(plan, policy, code, retries, r.restarts);
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
      retries++;
      r.restarts++;
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
    publish(true);
  }

  private void restart(ReplicaState r, ExitRules.Restart restart) {
    Runnable relaunch = guard(() -> {
      launch(r);
      updateRunning();
      publish(true);
    });
    if (restart.newPod()) {
      // ExitCode: the operator recreates the pod at once and reports the job Restarting.
      r.phase = "Pending";
      r.reason = "Restarting";
      r.message = "recreated after exit code " + r.exitCode;
      conditions.set("Restarting", true, reason("Restarting"), jobLabel() + " is restarting"
          + " because 1 " + r.id.type() + " replica(s) failed.", Instant.now());
      event("Warning", "Restarting", r.id.podName(), "recreating the pod after exit code "
          + r.exitCode + " (restart " + r.restarts + ")");
    } else {
      // OnFailure/Always: kubelet restarts the container in place after its back-off.
      r.phase = plan.kind() == LocalKind.BATCH ? "Pending" : "Running";
      r.reason = "CrashLoopBackOff";
      r.message = "back-off " + restart.delay().toMillis() + "ms restarting failed container";
      event("Warning", "BackOff", r.id.podName(), r.message);
    }
    r.pendingStart = loop.schedule(relaunch, restart.delay().toMillis(), TimeUnit.MILLISECONDS);
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
    Instant now = Instant.now();
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
   * Cancels pending restarts (nothing restarts once the job is over) and, when
   * {@code stopProcesses}, stops every replica still running: SIGTERM now, SIGKILL after the
   * grace period.
   */
  private void stopRunning(boolean stopProcesses, String why) {
    if (deadline != null) {
      deadline.cancel(false);
    }
    boolean any = false;
    for (ReplicaState r : replicas.values()) {
      if (r.pendingStart != null) {
        r.pendingStart.cancel(false);
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
        r.process.terminate();
        any = true;
      } else if (!r.isRunning() && r.created && r.phase.equals("Pending")) {
        // never scheduled (Unschedulable): its pod goes too
        r.reason = StatusMapper.STOPPED;
        r.message = why;
      }
    }
    if (any) {
      loop.schedule(guard(() -> replicas.values().stream()
              .filter(r -> r.isRunning() && r.stopRequested).forEach(r -> r.process.kill())),
          grace().toMillis(), TimeUnit.MILLISECONDS);
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
      publish(true);
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
          ? "the node job's pods are running" : jobLabel() + " is running.", Instant.now());
    }
  }

  /**
   * Records the current state: the snapshot, the state file, progress and waiters; lets go of
   * the job once it has settled.
   *
   * @param strict throw when the state file cannot be written (the caller's guard then fails
   *     the job); false only while failing it already
   */
  private void publish(boolean strict) {
    JobRecord record = toRecord();
    snapshot = record;
    RuntimeException failure = null;
    if (!deleted && !finishedUp) {
      try {
        write(record);
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    phases.report(record);
    synchronized (changed) {
      changed.notifyAll();
    }
    if (settled && !finishedUp) {
      // The last write is done: from here on the directory belongs to whoever deletes the job.
      finishedUp = true;
      lock.release();
      loop.shutdown();
      if (deleted) {
        // deleted from another process: nothing here will ask for this job again
        LiveJobs.remove(jobDir);
      }
      released.countDown();
    }
    if (failure != null) {
      if (strict) {
        throw failure;
      }
      LOG.error("local job {}: cannot record its state", plan.name(), failure);
    }
  }

  /** Writes the record, retrying a failed write twice before giving up. */
  private void write(JobRecord record) {
    for (int attempt = 1; ; attempt++) {
      try {
        store.write(jobDir, record);
        return;
      } catch (RuntimeException e) {
        if (attempt >= WRITE_ATTEMPTS) {
          throw e;
        }
        LOG.warn("local job {}: writing its state failed (attempt {}), retrying: {}",
            plan.name(), attempt, e.toString());
        try {
          Thread.sleep(50L * attempt * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private JobRecord toRecord() {
    List<JobRecord.Replica> list = new ArrayList<>();
    replicas.values().forEach(r -> list.add(r.toRecord(node)));
    return new JobRecord(JobRecord.VERSION, plan.kind().kind(), plan.name(), plan.namespace(),
        created.toString(), self.pid(),
        self.info().startInstant().map(Instant::toString).orElse(null), launcher.toString(),
        plan.objects(), ports.byPod(), conditions.list(),
        startTime == null ? null : startTime.toString(),
        completionTime == null ? null : completionTime.toString(), settled, list,
        List.copyOf(events), detached);
  }

  private void event(String type, String reason, String object, String message) {
    events.add(new JobRecord.Event(type, reason, object, message, Instant.now().toString()));
    if (events.size() > MAX_EVENTS) {
      events.remove(0);
    }
  }

  private Duration grace() {
    // terminationGracePeriodSeconds, capped: a cluster waits up to 30 s by default, but a local
    // user waiting on delete() should not, and training scripts rarely need more than a moment.
    return plan.groups().stream().map(g -> g.pod().terminationGraceSeconds())
        .flatMap(Optional::stream).max(Long::compare).map(Duration::ofSeconds)
        .map(d -> d.compareTo(DEFAULT_GRACE) > 0 ? DEFAULT_GRACE : d).orElse(DEFAULT_GRACE);
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

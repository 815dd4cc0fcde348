package dev.fairing4j.deploy.local.internal;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
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
 * the operator's rules, stops what is left, and writes every change to the state directory.
 *
 * <p>All state changes happen on one thread per job, in order, so the rules never see a half
 * applied change; the thread ends once the job is over and no process is left.
 */
public final class JobSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(JobSupervisor.class);
  private static final int MAX_EVENTS = 200;
  private static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

  private final JobPlan plan;
  private final Path jobDir;
  private final StateStore store;
  private final ReplicaLauncher launcher;
  private final Map<String, PreparedReplica> prepared;
  private final JobPorts ports;
  private final int gpusAvailable;
  private final boolean ignoreGpus;
  private final ProgressListener progress;
  private final Instant created = Instant.now();
  private final String node = HostFacts.hostName();
  private final ProcessHandle self = ProcessHandle.current();
  private final ScheduledExecutorService loop;
  private final Map<String, ReplicaState> replicas = new LinkedHashMap<>();
  private final ConditionList conditions = new ConditionList();
  private final List<JobRecord.Event> events = new ArrayList<>();
  private final Object changed = new Object();

  private int retries;
  private String failureMessage;
  private Instant startTime;
  private Instant completionTime;
  private boolean terminal;
  private ScheduledFuture<?> deadline;
  private JobPhase lastPhase = JobPhase.PENDING;
  private volatile JobRecord snapshot;
  private volatile boolean settled;
  private volatile boolean deleted;

  /**
   * A supervisor for {@code plan}, whose replicas are {@code prepared} (by pod name).
   *
   * @param gpusAvailable NVIDIA GPUs on this machine
   * @param ignoreGpus run replicas that request GPUs anyway
   */
  public JobSupervisor(JobPlan plan, Path jobDir, StateStore store, ReplicaLauncher launcher,
      Map<String, PreparedReplica> prepared, JobPorts ports, int gpusAvailable,
      boolean ignoreGpus, ProgressListener progress) {
    this.plan = plan;
    this.jobDir = jobDir;
    this.store = store;
    this.launcher = launcher;
    this.prepared = Map.copyOf(prepared);
    this.ports = ports;
    this.gpusAvailable = gpusAvailable;
    this.ignoreGpus = ignoreGpus;
    this.progress = progress;
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

  /** Starts the job; returns once its replicas are started (or known unschedulable). */
  public void start() {
    try {
      loop.submit(this::begin).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
  }

  /** The latest record; empty once the job was deleted. */
  public Optional<JobRecord> record() {
    return deleted ? Optional.empty() : Optional.ofNullable(snapshot);
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
   * Fails the job with {@code message} (unless it already ended) and stops its processes;
   * returns once they are gone.
   */
  public void stop(String message) {
    run(() -> {
      if (!terminal) {
        failureMessage = message;
        event("Warning", "Stopped", plan.name(), message);
        finish(JobPhase.FAILED, message);
        publish();
      }
    });
    awaitStopped();
  }

  /** Stops every process, then removes the job from the state directory. */
  public void delete() {
    store.markDeleting(jobDir);
    run(() -> {
      deleted = true;
      if (!terminal) {
        terminal = true;
        stopAll();
      }
      settleIfDone();
      publish();
    });
    awaitStopped();
    deleted = true;
    LiveJobs.remove(jobDir);
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
      loop.submit(task).get();
    } catch (RejectedExecutionException | CancellationException e) {
      // the job settled and its thread ended (or shut down with the task still queued, which
      // cancels it): there is nothing left to change
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      LOG.warn("local job {} supervisor task failed", plan.name(), e.getCause());
    }
  }

  private void post(Runnable task) {
    try {
      loop.execute(() -> {
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.warn("local job {} supervisor task failed", plan.name(), e);
        }
      });
    } catch (RejectedExecutionException e) {
      // settled: late callbacks have nothing to change
    }
  }

  private void begin() {
    Instant now = Instant.now();
    startTime = now;
    conditions.set("Created", true, reason("Created"), jobLabel() + " is created.", now);
    plan.activeDeadlineSeconds().ifPresent(seconds ->
        deadline = loop.schedule(this::expire, seconds, TimeUnit.SECONDS));
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
    publish();
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
    if (r.stopRequested || terminal || StateStore.isDeleting(jobDir)) {
      r.phase = code == 0 ? "Succeeded" : "Failed";
      r.reason = code == 0 ? "Completed" : "Stopped";
      r.message = code == 0 ? null : "stopped because the job ended (exit code " + code + ")";
      if (!terminal) {
        // deleted from another JVM: start nothing more, write nothing more
        deleted = true;
        terminal = true;
        stopAll();
      }
      settleIfDone();
      publish();
      return;
    }
    RestartPolicy policy = r.group.restartPolicy();
    boolean restarting = false;
    if (code == 0 && policy != RestartPolicy.ALWAYS) {
      r.phase = "Succeeded";
      r.reason = "Completed";
      r.message = null;
    } else {
      if (code != 0) {
        event("Warning", "ExitedWithCode", r.id.podName(),
            r.id.container() + " exited with code " + code);
      }
      // A plain Job retries every failed pod (OnFailure in place, Never with a new pod).
      boolean wantsRetry = plan.kind() == LocalKind.BATCH ? code != 0 : policy.retries(code);
      boolean allowed = plan.backoffLimit().map(limit -> retries < limit).orElse(true);
      if (wantsRetry && allowed) {
        retries++;
        r.restarts++;
        restarting = true;
        restart(r, policy);
      } else {
        r.phase = "Failed";
        r.reason = "Error";
        r.message = "exited with code " + code;
        if (wantsRetry) {
          failureMessage = jobLabel() + " has failed because it has reached the specified"
              + " backoff limit";
        }
      }
    }
    decide();
    if (!restarting) {
      updateRunning();
    }
    publish();
  }

  private void restart(ReplicaState r, RestartPolicy policy) {
    if (policy.recreatesPod()) {
      // ExitCode: the operator recreates the pod at once and reports the job Restarting.
      r.phase = "Pending";
      r.reason = "Restarting";
      r.message = "recreated after exit code " + r.exitCode;
      conditions.set("Restarting", true, reason("Restarting"), jobLabel() + " is restarting"
          + " because 1 " + r.id.type() + " replica(s) failed.", Instant.now());
      event("Warning", "Restarting", r.id.podName(), "recreating the pod after exit code "
          + r.exitCode + " (restart " + r.restarts + ")");
      post(() -> {
        launch(r);
        updateRunning();
        publish();
      });
    } else {
      // OnFailure/Always: kubelet restarts the container with a growing back-off; locally the
      // back-off is shorter (0.2 s doubling, at most 10 s) as a local restart is cheap.
      Duration delay = Duration.ofMillis(Math.min(MAX_BACKOFF.toMillis(),
          200L << Math.min(10, r.restarts - 1)));
      r.phase = plan.kind() == LocalKind.BATCH ? "Pending" : "Running";
      r.reason = "CrashLoopBackOff";
      r.message = "back-off " + delay.toMillis() + "ms restarting failed container";
      event("Warning", "BackOff", r.id.podName(), r.message);
      r.pendingStart = loop.schedule(() -> {
        launch(r);
        updateRunning();
        publish();
      }, delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void decide() {
    if (terminal) {
      return;
    }
    Optional<JobRules.Outcome> outcome = JobRules.evaluate(plan, replicas.values());
    if (outcome.isPresent()) {
      String message = outcome.get().phase() == JobPhase.FAILED && failureMessage != null
          ? failureMessage : outcome.get().message();
      finish(outcome.get().phase(), message);
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

  private void finish(JobPhase phase, String message) {
    terminal = true;
    Instant now = Instant.now();
    completionTime = now;
    conditions.set(phase.conditionType(), true, reason(phase.conditionType()), message, now);
    event(phase == JobPhase.FAILED ? "Warning" : "Normal", reason(phase.conditionType()),
        plan.name(), message);
    stopAll();
    settleIfDone();
  }

  private void stopAll() {
    if (deadline != null) {
      deadline.cancel(false);
    }
    boolean any = false;
    for (ReplicaState r : replicas.values()) {
      if (r.pendingStart != null) {
        r.pendingStart.cancel(false);
        r.pendingStart = null;
      }
      if (r.isRunning()) {
        r.stopRequested = true;
        r.process.terminate();
        any = true;
      }
    }
    if (any) {
      loop.schedule(() -> replicas.values().stream().filter(ReplicaState::isRunning)
          .forEach(r -> r.process.kill()), grace().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void expire() {
    if (!terminal) {
      failureMessage = jobLabel() + " has failed because it was active longer than specified"
          + " deadline";
      finish(JobPhase.FAILED, failureMessage);
      publish();
    }
  }

  private void settleIfDone() {
    if (terminal && replicas.values().stream().noneMatch(ReplicaState::isRunning)) {
      settled = true;
    }
  }

  private void updateRunning() {
    if (!terminal && replicas.values().stream().anyMatch(ReplicaState::isRunning)) {
      conditions.set("Running", true, reason("Running"), jobLabel() + " is running.",
          Instant.now());
    }
  }

  private void publish() {
    JobRecord record = toRecord();
    snapshot = record;
    if (!deleted) {
      store.write(jobDir, record);
    }
    JobPhase phase = JobStatus.phaseOf(StatusMapper.conditions(record));
    if (phase != lastPhase) {
      Map<String, Integer> counts = new TreeMap<>();
      record.replicas().stream().filter(JobRecord.Replica::created)
          .forEach(r -> counts.merge(r.phase(), 1, Integer::sum));
      progress.onEvent(new ProgressEvent.PhaseChanged(plan.name(), lastPhase, phase, counts));
      lastPhase = phase;
    }
    synchronized (changed) {
      changed.notifyAll();
    }
    if (settled) {
      loop.shutdown();
      if (deleted) {
        // deleted from another JVM: nothing here will ask for this job again
        LiveJobs.remove(jobDir);
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
        List.copyOf(events));
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
    return plan.kind().kind() + type;
  }

  private String jobLabel() {
    return plan.kind().kind() + " " + plan.name();
  }
}

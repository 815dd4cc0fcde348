package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.LocalKind;
import dev.fairing4j.deployer.local.internal.plan.JobPorts;
import dev.fairing4j.deployer.local.internal.plan.PreparedReplica;
import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.local.internal.runtime.ContainerCleanup;
import dev.fairing4j.deployer.local.internal.runtime.HostFacts;
import dev.fairing4j.deployer.local.internal.runtime.LogFormat;
import dev.fairing4j.deployer.local.internal.runtime.ReplicaLauncher;
import dev.fairing4j.deployer.local.internal.runtime.ReplicaProcess;
import dev.fairing4j.deployer.local.internal.trainerstatus.StatusEndpoint;
import dev.fairing4j.deployer.local.internal.trainerstatus.StatusServer;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.PhaseReporter;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.local.internal.state.SupervisorLock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
 * The local stand-in for the training operator's controller, for one job: the effects runner of
 * its {@link JobMachine}. The machine decides (restart policy, backoff limit, success rules,
 * clean-pod policy, deadlines); this class carries its decisions out with real processes and a
 * scheduler, feeds it their exits, polls the control files, and writes every change to the
 * state directory.
 *
 * <p>It runs either in a supervisor process of the job's own ({@code SupervisorMain}), so the job
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
  private static final long CONTROL_MILLIS = 100;
  private static final int WRITE_ATTEMPTS = 3;

  private final JobPlan plan;
  private final Path jobDir;
  private final StateStore store;
  private final ReplicaLauncher launcher;
  private final Map<String, PreparedReplica> prepared;
  private final JobPorts ports;
  private final Optional<StatusEndpoint> statusEndpoint;
  private final int gpusAvailable;
  private final boolean ignoreGpus;
  private final boolean detached;
  private final PhaseReporter phases;
  private final String node = HostFacts.hostName();
  private final ProcessHandle self = ProcessHandle.current();
  private final ScheduledExecutorService loop;
  private final JobMachine machine;
  // The processes of the replicas that run now, by pod name; touched only on the loop thread.
  private final Map<String, ReplicaProcess> processes = new HashMap<>();
  private final Object changed = new Object();
  private final CountDownLatch released = new CountDownLatch(1);

  private SupervisorLock lock;
  private Optional<StatusServer> statusServer = Optional.empty();
  private boolean finishedUp;
  private volatile JobRecord snapshot;
  private volatile boolean settled;
  private volatile boolean deleted;

  /**
   * A supervisor for {@code plan}, whose replicas are {@code prepared} (by pod name).
   *
   * @param statusEndpoint where a TrainJob's status server listens while the job runs
   * @param gpusAvailable NVIDIA GPUs on this machine
   * @param ignoreGpus run replicas that request GPUs anyway
   * @param detached whether this runs in a supervisor process of the job's own
   * @param created when the job was submitted
   */
  public JobSupervisor(JobPlan plan, Path jobDir, StateStore store, ReplicaLauncher launcher,
      Map<String, PreparedReplica> prepared, JobPorts ports,
      Optional<StatusEndpoint> statusEndpoint, int gpusAvailable, boolean ignoreGpus,
      boolean detached, Instant created, ProgressListener progress) {
    this.plan = plan;
    this.jobDir = jobDir;
    this.store = store;
    this.launcher = launcher;
    this.prepared = Map.copyOf(prepared);
    this.ports = ports;
    this.statusEndpoint = statusEndpoint;
    this.gpusAvailable = gpusAvailable;
    this.ignoreGpus = ignoreGpus;
    this.detached = detached;
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
    this.machine = new JobMachine(plan, created, new Effects());
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
    run(() -> {
      machine.stop(message);
      publish(true);
    });
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
    run(() -> processes.values().forEach(p -> pids.addAll(p.tree())));
    return pids;
  }

  private void awaitStopped() {
    if (!awaitSettled(machine.grace().plusSeconds(15))) {
      // Something ignored SIGKILL's aftermath for too long; kill again and stop waiting on it.
      run(() -> processes.values().forEach(ReplicaProcess::kill));
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
    try {
      machine.supervisorFailed(e);
      publish(false);
    } catch (RuntimeException | Error again) {
      LOG.error("local job {}: cannot fail the job cleanly; killing its processes", plan.name(),
          again);
      // Last resort: no process may outlive a supervisor that can no longer supervise it.
      processes.values().forEach(ReplicaProcess::kill);
    }
  }

  private void begin() {
    loop.scheduleWithFixedDelay(guard(this::checkControl), CONTROL_MILLIS, CONTROL_MILLIS,
        TimeUnit.MILLISECONDS);
    statusEndpoint.ifPresent(this::startStatusServer);
    Map<String, Long> gpus = new HashMap<>();
    prepared.forEach((pod, replica) -> gpus.put(pod, replica.gpus()));
    machine.begin(gpusAvailable, ignoreGpus, gpus);
    publish(true);
  }

  /**
   * Serves the TrainJob's status endpoint before any replica can post to it. One that cannot
   * listen (its port taken since submit) is no reason to fail the training: the Kubeflow SDK's
   * helper never raises, and the logs' metrics stay.
   */
  private void startStatusServer(StatusEndpoint endpoint) {
    try {
      statusServer = Optional.of(StatusServer.start(endpoint, jobDir));
    } catch (IOException | RuntimeException e) {
      LOG.warn("local job {}: no Trainer status server on {}; progress the script posts to it"
          + " is lost", plan.name(), endpoint.url(), e);
      if (detached) {
        System.err.println(Instant.now() + " no Trainer status server on " + endpoint.url()
            + ": " + e);
      }
    }
  }

  /** Acts on what other processes asked through the job's control files. */
  private void checkControl() {
    if (finishedUp || machine.isDeleted()) {
      return;
    }
    if (lock.isStale() || StateStore.isDeleting(jobDir)) {
      onDeleted();
      return;
    }
    store.takeStopRequest(jobDir).ifPresent(message -> {
      machine.stop(message);
      publish(true);
    });
  }

  /** Deleted, here or from another process: stop everything and write nothing more. */
  private void onDeleted() {
    machine.delete();
    publish(true);
  }

  /**
   * Records the current state: the snapshot, the state file, progress and waiters; lets go of
   * the job once it has settled.
   *
   * @param strict throw when the state file cannot be written (the caller's guard then fails
   *     the job); false only while failing it already
   */
  private void publish(boolean strict) {
    JobRecord record = machine.record(node, self, launcher.toString(), ports.byPod(), detached);
    snapshot = record;
    if (machine.isDeleted()) {
      deleted = true;
    }
    settled = machine.isSettled();
    RuntimeException failure = null;
    if (!machine.isDeleted() && !finishedUp) {
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
      // no replica is left to post to it
      statusServer.ifPresent(StatusServer::close);
      lock.release();
      loop.shutdown();
      if (machine.isDeleted()) {
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

  /** The machine's effects, with real processes, the loop's scheduler and the clock. */
  private final class Effects implements MachineEffects {
    @Override
    public Instant now() {
      return Instant.now();
    }

    @Override
    public Started launch(ReplicaId id, int attempt) throws IOException {
      String pod = id.podName();
      PreparedReplica p = prepared.get(pod);
      Path log = StateStore.logFile(jobDir, id.shortName());
      if (attempt > 1) {
        // Where this run's lines start in the replica's one log, for the failure report.
        Files.writeString(log, LogFormat.runMarker(attempt), StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      }
      ReplicaProcess[] started = new ReplicaProcess[1];
      // The exit is posted to the loop, so it runs after this launch has recorded the process.
      started[0] = ReplicaProcess.start(pod, p.command(), p.directory(), p.env(), log, launcher,
          code -> post(() -> {
            processes.remove(pod, started[0]);
            if (machine.exited(pod, attempt, code)) {
              publish(true);
            }
          }));
      processes.put(pod, started[0]);
      return new Started(started[0].pid(), started[0].started());
    }

    @Override
    public void terminate(String pod) {
      ReplicaProcess process = processes.get(pod);
      if (process != null) {
        process.terminate();
      }
    }

    @Override
    public void kill(String pod) {
      ReplicaProcess process = processes.get(pod);
      if (process != null) {
        process.kill();
      }
    }

    @Override
    public Timer schedule(Duration delay, Runnable task) {
      ScheduledFuture<?> future = loop.schedule(guard(() -> {
        task.run();
        publish(true);
      }), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
      return () -> future.cancel(false);
    }

    @Override
    public void removeLeftovers(String pod) {
      launcher.removeLeftovers(pod);
    }

    @Override
    public boolean deleting() {
      return StateStore.isDeleting(jobDir);
    }
  }
}

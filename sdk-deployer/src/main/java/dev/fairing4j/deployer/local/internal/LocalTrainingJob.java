package dev.fairing4j.deployer.local.internal;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.MetricParser;
import dev.fairing4j.core.MetricPoint;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.OnTimeout;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.core.internal.ProgressTap;
import dev.fairing4j.core.internal.WaitedPhases;
import dev.fairing4j.deployer.job.internal.LastLines;
import dev.fairing4j.deployer.job.internal.Metadata;
import dev.fairing4j.deployer.local.internal.logs.LocalJobLogs;
import dev.fairing4j.deployer.local.internal.operator.JobSupervisor;
import dev.fairing4j.deployer.local.internal.operator.LiveJobs;
import dev.fairing4j.deployer.local.internal.runtime.ProcessGroups;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.local.internal.state.StatusMapper;
import dev.fairing4j.deployer.local.internal.supervisor.DetachedControl;
import dev.fairing4j.deployer.local.internal.supervisor.PhaseRelay;
import dev.fairing4j.deployer.local.internal.trainerstatus.StatusReports;
import dev.fairing4j.deployer.trainer.internal.TrainJobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A handle on a local job. It holds nothing but the job's identity: each call asks the live
 * supervisor when this JVM runs the job, and reads the state directory otherwise, so a handle made
 * by another {@code LocalCluster} or another JVM sees the same job.
 */
public final class LocalTrainingJob implements TrainingJob {
  private static final int LAST_LINES = 20;
  /** What waitForCompletion waits for: the success (a failure throws). */
  private static final Set<JobPhase> COMPLETION = EnumSet.of(JobPhase.SUCCEEDED);

  private final StateStore store;
  private final Path jobDir;
  private final String kind;
  private final String name;
  private final String namespace;
  private final boolean killOnTimeout;
  private final ProgressListener progress;
  // "local" or "podman", read once from the record by toString().
  private volatile String cluster;
  // The runtime this handle was made under: its log followers are that runtime's.
  private final Owner owner = Owner.current();

  /** A handle on the job in {@code jobDir}, as attached: followed logs report nowhere. */
  public LocalTrainingJob(StateStore store, Path jobDir, String kind, String name,
      String namespace, boolean killOnTimeout) {
    this(store, jobDir, kind, name, namespace, killOnTimeout, ProgressListener.NONE);
  }

  /**
   * A handle on the job in {@code jobDir} whose followed logs report training progress to
   * {@code progress}, the submitting pipeline's listener.
   */
  public LocalTrainingJob(StateStore store, Path jobDir, String kind, String name,
      String namespace, boolean killOnTimeout, ProgressListener progress) {
    KernelBridge.install();  // a job handle is displayable: the first one registers the renderer
    this.store = store;
    this.jobDir = jobDir;
    this.kind = kind;
    this.name = name;
    this.namespace = namespace;
    this.killOnTimeout = killOnTimeout;
    this.progress = progress;
  }

  @Override
  public String name() {
    return name;
  }

  /** The job's state, for the endpoint that reads its ports. */
  StateStore store() {
    return store;
  }

  /** The job's directory in {@link #store()}. */
  Path jobDir() {
    return jobDir;
  }

  @Override
  public String namespace() {
    return namespace;
  }

  @Override
  public String kind() {
    return kind;
  }

  /** The labels of the job's object in the manifest it was started with. */
  @Override
  public Map<String, String> labels() {
    return store.read(jobDir).flatMap(record -> record.manifest().stream()
        .filter(object -> kind.equals(object.get("kind"))).findFirst())
        .map(Metadata::labelsOf).orElse(Map.of());
  }

  /**
   * The events the job's supervisor recorded, as the operator and the kubelet would: on the job
   * ({@code pytorchjob/mnist}: pods created, the end) and on its pods ({@code pod/...}: started,
   * exit codes, back-offs, restarts).
   */
  @Override
  public List<JobEvent> events() {
    String jobObject = kind.toLowerCase(Locale.ROOT) + "/" + name;
    return record().events().stream()
        .map(e -> new JobEvent(StatusMapper.instant(e.time()).orElse(Instant.EPOCH), e.type(),
            e.reason(), e.object().equals(name) ? jobObject : "pod/" + e.object(), e.message(),
            1))
        .toList();
  }

  @Override
  public JobStatus status() {
    Observed now = observe();
    return StatusMapper.toStatus(now.record(), now.supervised());
  }

  /**
   * Follows the job until it ends or {@code timeout} passes, then leaves it running (or stops it,
   * on a cluster made with the deprecated {@code killOnTimeout()}).
   */
  @Override
  public JobStatus waitForCompletion(Duration timeout) {
    return await(timeout, OnTimeout.KEEP, COMPLETION, status -> { }, killOnTimeout);
  }

  /**
   * Follows the job until it ends or {@code timeout} passes, then leaves it running
   * ({@link OnTimeout#KEEP}) or stops its processes and removes it as {@link #delete()} does
   * ({@link OnTimeout#DELETE}). {@link OnTimeout#SUSPEND} is refused before waiting: a suspended
   * Kubernetes job keeps its object and gets new pods on resume, but a process stopped here
   * cannot be resumed where it stopped.
   *
   * @throws InvalidInputException naming {@code onTimeout} for {@link OnTimeout#SUSPEND}
   */
  @Override
  public JobStatus waitForCompletion(Duration timeout, OnTimeout onTimeout) {
    Objects.requireNonNull(onTimeout, "onTimeout");
    if (onTimeout == OnTimeout.SUSPEND) {
      throw InvalidInputException.of("onTimeout", kind + " " + name + " runs on this machine,"
          + " where a job cannot be suspended: its processes would end and cannot resume where"
          + " they stopped", "pass OnTimeout.DELETE to stop and remove it on timeout, or"
          + " OnTimeout.KEEP to leave it running (delete() stops it later)");
    }
    return await(timeout, onTimeout, COMPLETION, status -> { }, killOnTimeout);
  }

  /**
   * Follows the job until it is in one of {@code phases}, as {@link #waitForCompletion} follows
   * it (woken by the supervisor's changes when this JVM runs it), telling {@code onChange} of
   * each phase seen; on timeout it keeps running.
   *
   * @throws JobFailedException when the job fails and {@code phases} has no {@code FAILED}
   * @throws JobTimeoutException when {@code timeout} passes first
   */
  @Override
  public JobStatus waitFor(Set<JobPhase> phases, Duration timeout,
      Consumer<JobStatus> onChange) {
    Set<JobPhase> wanted = WaitedPhases.of(phases);
    Objects.requireNonNull(onChange, "onChange");
    return await(timeout, OnTimeout.KEEP, wanted, onChange, false);
  }

  // stopOnTimeout: the deprecated killOnTimeout(), which only waitForCompletion honours.
  private JobStatus await(Duration timeout, OnTimeout onTimeout, Set<JobPhase> until,
      Consumer<JobStatus> onChange, boolean stopOnTimeout) {
    Objects.requireNonNull(timeout, "timeout");
    Instant deadline = Instant.now().plus(timeout);
    JobPhase previous = null;
    while (true) {
      Observed now = observe();
      JobRecord record = now.record();
      boolean supervised = now.supervised();
      JobStatus status = StatusMapper.toStatus(record, supervised);
      if (status.phase() != previous) {
        previous = status.phase();
        onChange.accept(status);
      }
      if (!status.isTerminal() && until.contains(status.phase())) {
        return status;
      }
      // Terminal, and the stops the end ordered are done: a caller that goes on finds none of
      // them still running. Replicas a clean-pod policy of None leaves running may go on, as
      // their pods do on a cluster.
      boolean stopping = record.replicas().stream()
          .anyMatch(r -> StatusMapper.TERMINATING.equals(r.reason()));
      boolean over = status.isTerminal() && (record.settled() || !supervised || !stopping);
      if (over) {
        DetachedControl.awaitSupervisorExit(record);
        // The pipeline's listener hears of the end before the wait returns.
        PhaseRelay.catchUp(jobDir);
      }
      if (over && (status.phase() == JobPhase.SUCCEEDED || until.contains(status.phase()))) {
        return status;
      }
      if (over) {
        throw failure(status, record);
      }
      Duration left = Duration.between(Instant.now(), deadline);
      if (left.isNegative() || left.isZero()) {
        if (onTimeout == OnTimeout.DELETE) {
          delete();
          throw new JobTimeoutException(status, timeout, "deleted it");
        }
        if (stopOnTimeout) {
          stopAfter("waitForCompletion timed out after " + timeout);
          throw new JobTimeoutException(status(), timeout, "its processes were stopped");
        }
        throw new JobTimeoutException(status, timeout, "it keeps running; delete() stops it");
      }
      try {
        Duration step = left.compareTo(Duration.ofMillis(200)) < 0 ? left : Duration.ofMillis(200);
        Optional<JobSupervisor> live = LiveJobs.get(jobDir);
        if (live.isPresent()) {
          live.get().awaitChange(step);
        } else {
          Thread.sleep(Math.max(1, step.toMillis() / 2));
        }
      } catch (InterruptedException e) {
        if (stopOnTimeout) {
          stopAfter("waitForCompletion was interrupted");
        }
        Thread.currentThread().interrupt();
        throw FairingException.of("wait for job", kind + " " + name, "interrupted",
            stopOnTimeout ? "its processes were stopped; run it again"
                : "it keeps running; job.delete() stops it", e);
      }
    }
  }

  /**
   * The metrics every replica logged (see {@link TrainingJob#metrics(MetricParser)}); for a
   * TrainJob whose trainer posted to its status server ({@code update_trainjob_status}), also
   * each report it posted, as the source {@code trainer}, read as the Kubernetes path reads
   * {@code status.trainerStatus}: progress in percent of the whole job and every numeric metric.
   */
  @Override
  public JobMetrics metrics(MetricParser parser) {
    JobMetrics fromLogs = TrainingJob.super.metrics(parser);
    List<TrainJobStatus.TrainerReport> reports = StatusReports.of(jobDir);
    if (reports.isEmpty()) {
      return fromLogs;
    }
    Map<String, List<MetricPoint>> series = new LinkedHashMap<>();
    for (TrainJobStatus.TrainerReport report : reports) {
      report.values().forEach((name, value) -> series.computeIfAbsent(name,
          n -> new ArrayList<>()).add(new MetricPoint(report.time(), value)));
    }
    return fromLogs.plusSeries("trainer", series);
  }

  @Override
  public JobLogs logs() {
    return ProgressTap.wrap(new LocalJobLogs(this::current, this::finished, jobDir), name,
        progress, owner);
  }

  @Override
  public void delete() {
    Optional<JobSupervisor> live = LiveJobs.get(jobDir);
    if (live.isPresent()) {
      live.get().delete();
    } else {
      DetachedControl.delete(store, jobDir);
    }
  }

  /**
   * The pids of the job's processes and their descendants right now, its supervisor process
   * included when it has one; for tests that check nothing is left behind.
   */
  public List<Long> processTree() {
    Optional<JobSupervisor> live = LiveJobs.get(jobDir);
    if (live.isPresent()) {
      return live.get().processTree();
    }
    return store.readMarked(jobDir).map(DetachedControl::processTree).orElse(List.of());
  }

  private void stopAfter(String why) {
    String message = kind + " " + name + " was stopped: " + why;
    Optional<JobSupervisor> live = LiveJobs.get(jobDir);
    if (live.isPresent()) {
      live.get().stop(message);
    } else {
      DetachedControl.stop(store, jobDir, message);
    }
  }

  private Optional<JobRecord> current() {
    Optional<JobSupervisor> live = LiveJobs.get(jobDir);
    return live.isPresent() ? live.get().record() : store.read(jobDir);
  }

  private JobRecord record() {
    return current().orElseThrow(() -> FairingException.of("read job status",
        kind + " " + namespace + "/" + name, "the local job no longer exists (it was deleted)",
        "submit it again", null));
  }

  /** A record and whether a supervisor still follows the job it describes. */
  record Observed(JobRecord record, boolean supervised) {}

  /**
   * The record and its supervisor's liveness, read in the one order that cannot mix them up: a
   * supervisor writes its last record before it exits, so a record read before its exit was
   * seen may be an older one. Read after, it is the last. (The soak benchmark caught a job that
   * succeeded in 0.2 s reported as "supervisor exited before the job ended": the record was read
   * while it ran, the liveness after it had exited.)
   */
  private Observed observe() {
    return observe(this::record, this::supervised);
  }

  static Observed observe(Supplier<JobRecord> read, Predicate<JobRecord> supervised) {
    JobRecord record = read.get();
    if (supervised.test(record)) {
      return new Observed(record, true);
    }
    JobRecord last = read.get();
    return new Observed(last, supervised.test(last));
  }

  private boolean finished() {
    Optional<JobRecord> record = current();
    return record.isEmpty() || record.get().settled() || !supervised(record.get());
  }

  private boolean supervised(JobRecord record) {
    if (LiveJobs.get(jobDir).isPresent()) {
      return true;
    }
    if (record.supervisorPid() == ProcessHandle.current().pid()) {
      // Recorded by this JVM, which no longer supervises it: its supervisor is gone.
      return false;
    }
    return ProcessGroups.isAlive(record.supervisorPid(),
        StatusMapper.instant(record.supervisorStartedAt()));
  }

  private JobFailedException failure(JobStatus status, JobRecord record) {
    Optional<JobRecord.Replica> failed = record.replicas().stream()
        .filter(r -> r.phase().equals("Failed") && !"Stopped".equals(r.reason()))
        .findFirst()
        .or(() -> record.replicas().stream().filter(r -> r.exitCode() != null
            && r.exitCode() != 0).findFirst());
    String message = status.decidingCondition().map(c -> c.message()).orElse("");
    List<String> lastLines = failed.map(r -> new LocalJobLogs(this::current, () -> true, jobDir)
        .lastLines(r.shortName(), LastLines.READ)).map(LastLines::of)
        // no replica failed: a supervisor process that died says why in its own output
        .orElseGet(() -> record.detached() ? supervisorOutput() : List.of());
    List<String> warnings = StatusMapper.warnings(record, Integer.MAX_VALUE);
    return new JobFailedException(status, failed.map(JobRecord.Replica::shortName),
        failed.map(JobRecord.Replica::exitCode), message, lastLines, warnings);
  }

  private List<String> supervisorOutput() {
    try {
      List<String> lines = java.nio.file.Files.readAllLines(
          jobDir.resolve(StateStore.SUPERVISOR_LOG));
      return lines.subList(Math.max(0, lines.size() - LAST_LINES), lines.size());
    } catch (java.io.IOException e) {
      return List.of();
    }
  }

  @Override
  public String toString() {
    return kind + " " + namespace + "/" + name + " (" + cluster() + ")";
  }

  // Which cluster of this machine runs it, as its record says (podman's launcher, or a sandbox).
  private String cluster() {
    String known = cluster;
    if (known == null) {
      known = store.read(jobDir).map(JobRecord::sandbox).filter("podman"::equals)
          .orElse("local");
      cluster = known;
    }
    return known;
  }
}

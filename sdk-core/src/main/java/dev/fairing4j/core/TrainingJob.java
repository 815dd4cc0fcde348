package dev.fairing4j.core;

import dev.fairing4j.core.internal.WaitedPhases;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A handle on a submitted training job, wherever it runs (a Kubernetes cluster or this machine):
 * read its status, follow the logs of every replica, read the metrics they logged, wait for the
 * end, clean up. A handle holds no open connection between calls, so it can be kept in a notebook
 * variable for hours. In a notebook, a cell ending with a job shows its status tables.
 */
public interface TrainingJob extends Displayable {
  /** The job name. */
  String name();

  /** The namespace it runs in. */
  String namespace();

  /** The kind: {@code PyTorchJob}, {@code TFJob} or {@code Job}. */
  String kind();

  /** Reads the current status, pods included. */
  JobStatus status();

  /**
   * Blocks until the job succeeds (returning its final status) or fails.
   *
   * @throws JobFailedException when the job fails, with the failed replica, exit code, message,
   *     last log lines and warning events
   * @throws JobTimeoutException when {@code timeout} passes first
   */
  JobStatus waitForCompletion(Duration timeout);

  /**
   * Blocks until the job succeeds (returning its final status) or fails, and when
   * {@code timeout} passes first, leaves the job running ({@link OnTimeout#KEEP}, as
   * {@link #waitForCompletion(Duration)} does), deletes it as {@link #delete()} does
   * ({@link OnTimeout#DELETE}) or suspends it ({@link OnTimeout#SUSPEND}, where the cluster can
   * resume a job: Kubernetes) before it throws. The same call on every cluster, so a script need
   * not know where its job runs to bound it.
   *
   * <p>This default waits with {@link #waitForCompletion(Duration)} and deletes after it; it
   * refuses {@link OnTimeout#SUSPEND} before waiting, since it knows no way to resume.
   *
   * @throws JobFailedException when the job fails
   * @throws JobTimeoutException when {@code timeout} passes first; its message says what was done
   *     with the job
   * @throws InvalidInputException naming {@code onTimeout} when the job's cluster cannot do it
   */
  default JobStatus waitForCompletion(Duration timeout, OnTimeout onTimeout) {
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(onTimeout, "onTimeout");
    if (onTimeout == OnTimeout.SUSPEND) {
      throw InvalidInputException.of("onTimeout", kind() + " " + name() + " runs where a job"
          + " cannot be suspended and resumed", "pass OnTimeout.DELETE to stop and remove it on"
          + " timeout, or OnTimeout.KEEP to leave it running");
    }
    try {
      return waitForCompletion(timeout);
    } catch (JobTimeoutException e) {
      if (onTimeout == OnTimeout.KEEP) {
        throw e;
      }
      delete();
      throw new JobTimeoutException(e.lastStatus(), timeout, "deleted it");
    }
  }

  /**
   * Blocks until the job is in one of {@code phases} and returns its status then, pods included
   * (the Kubeflow SDK's {@code wait_for_job_status}): e.g. {@code Set.of(JobPhase.RUNNING)} to
   * wait for its start, {@code Set.of(JobPhase.SUCCEEDED, JobPhase.FAILED)} to wait for either
   * end without an exception. {@code onChange} hears each phase the wait sees, first the one it
   * finds, each with the status the job's object gives (pods are read when the wait ends); an
   * exception from it ends the wait.
   *
   * <p>A job that ends in a phase not among them ends the wait too: a failure throws
   * {@link JobFailedException} as {@link #waitForCompletion(Duration)} does, a success returns
   * its status (see {@link JobStatus#phase()}). When {@code timeout} passes first the job keeps
   * running. On Kubernetes the wait rides the cluster's shared watch, as
   * {@code waitForCompletion} does; this default polls {@link #status()} every second.
   *
   * @throws InvalidInputException naming {@code phases} when it is empty
   * @throws JobFailedException when the job fails and {@code phases} has no {@code FAILED}
   * @throws JobTimeoutException when {@code timeout} passes first
   */
  default JobStatus waitFor(Set<JobPhase> phases, Duration timeout,
      Consumer<JobStatus> onChange) {
    Set<JobPhase> wanted = WaitedPhases.of(phases);
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(onChange, "onChange");
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    JobPhase previous = null;
    while (true) {
      JobStatus now = status();
      if (now.phase() != previous) {
        onChange.accept(now);
        previous = now.phase();
      }
      if (wanted.contains(now.phase()) || now.phase() == JobPhase.SUCCEEDED) {
        return now;
      }
      if (now.phase() == JobPhase.FAILED) {
        return waitForCompletion(Duration.ofSeconds(30)); // throws its failure report
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new JobTimeoutException(now, timeout, null);
      }
      try {
        Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 1000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw FairingException.of("wait for " + kind() + " " + name(), null, "interrupted",
            "nothing to fix: the wait was interrupted", e);
      }
    }
  }

  /** Like {@link #waitFor(Set, Duration, Consumer)}, hearing of no change on the way. */
  default JobStatus waitFor(Set<JobPhase> phases, Duration timeout) {
    return waitFor(phases, timeout, status -> { });
  }

  /**
   * The logs of every replica. Followed ({@code stream}/{@code follow}) on a job a pipeline
   * started, they also report training progress (epoch, percent, time left, metrics) to the
   * pipeline's progress listener.
   */
  JobLogs logs();

  /**
   * The labels the job's object carries (the SDK's, a deployer's {@code label(..)}, an
   * experiment's trial labels); reads the cluster. Empty for a job whose labels cannot be read.
   */
  default Map<String, String> labels() {
    return Map.of();
  }

  /**
   * What happened to the job and its pods so far, oldest first: created, scheduled, started,
   * exited with a code, backed off, restarted, failed or succeeded (see {@link JobEvent}). On
   * Kubernetes these are the cluster's Event objects about the job and its pods, which the API
   * server keeps for about an hour; locally, the ones the job's record holds (its newest 200).
   * This default, for a job that records none, is empty.
   */
  default List<JobEvent> events() {
    return List.of();
  }

  /** Deletes the job and everything it owns; returns when they are gone. */
  void delete();

  /**
   * The metrics every replica has logged so far, read from the logs with
   * {@link MetricParser#defaults()}: Katib's format, {@code name=value} pairs and progress lines.
   * Works while the job runs and after it ended, as long as its logs can be read; where an
   * operator deletes the pods at the end, follow with a {@link MetricsRecorder} instead.
   */
  default JobMetrics metrics() {
    return metrics(MetricParser.defaults());
  }

  /**
   * The metrics the replicas have logged so far, found by {@code parser}; once the job has
   * succeeded, the progress of every replica that reported some is 100%.
   */
  default JobMetrics metrics(MetricParser parser) {
    JobMetrics fromLogs = JobMetrics.of(name(), logs().snapshot(), parser);
    return fromLogs.names().contains(MetricParser.PROGRESS) ? fromLogs.endedAs(status())
        : fromLogs;
  }

  /** The status as text tables ({@link JobStatus#toTable()}); reads the status. */
  @Override
  default String toText() {
    return status().toTable();
  }

  /** The status as HTML tables ({@link JobStatus#toHtml()}); reads the status. */
  @Override
  default String toHtml() {
    return status().toHtml();
  }
}

package dev.fairing4j.deploy.kubernetes;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deploy.kubernetes.internal.Deletion;
import dev.fairing4j.deploy.kubernetes.internal.FailureReport;
import dev.fairing4j.deploy.kubernetes.internal.JobReader;
import dev.fairing4j.deploy.kubernetes.internal.JobRef;
import dev.fairing4j.deploy.kubernetes.internal.KubeRest;
import dev.fairing4j.deploy.kubernetes.internal.KubernetesJobLogs;
import dev.fairing4j.deploy.kubernetes.internal.Timings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A handle on a PyTorchJob, TFJob (or other Kubeflow kind) or batch Job on a Kubernetes cluster.
 * Every call reads the cluster afresh; the handle holds no open connection, so it can sit in a
 * notebook variable for hours.
 *
 * <p>{@link #waitForCompletion} polls the status (every two seconds); a later version follows a
 * watch instead, resuming after dropped connections. {@link #logs()} follows by polling as well.
 */
public final class KubernetesTrainingJob implements TrainingJob {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesTrainingJob.class);

  private final Supplier<KubeRest> rest;
  private final JobRef job;
  private final Timings timings;
  private final ProgressListener progress;

  KubernetesTrainingJob(Supplier<KubeRest> rest, JobRef job, Timings timings,
      ProgressListener progress) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.job = Objects.requireNonNull(job, "job");
    this.timings = Objects.requireNonNull(timings, "timings");
    this.progress = Objects.requireNonNull(progress, "progress");
  }

  @Override
  public String name() {
    return job.name();
  }

  @Override
  public String namespace() {
    return job.namespace();
  }

  @Override
  public String kind() {
    return job.kind();
  }

  /**
   * Reads the job's conditions (the phase by the operator's precedence rule), replica counts,
   * times and pods, each pod with its replica, phase, node and why it is not running.
   *
   * @throws KubernetesApiException with {@link KubernetesApiException.Problem#NOT_FOUND} when the
   *     job no longer exists
   */
  @Override
  public JobStatus status() {
    return new JobReader(rest.get(), job).status();
  }

  /**
   * Polls the status until the job succeeds, fails or {@code timeout} passes, reporting phase
   * changes to the pipeline's progress listener. The job keeps running after a timeout.
   *
   * @throws dev.fairing4j.core.JobFailedException with the failed replica, its exit code, the
   *     operator's message, the replica's last log lines and the Warning events
   * @throws JobTimeoutException when {@code timeout} passes first
   */
  @Override
  public JobStatus waitForCompletion(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    KubeRest client = rest.get();
    JobReader reader = new JobReader(client, job);
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    JobPhase previous = null;
    while (true) {
      Map<String, Object> object = reader.requireObject();
      List<JobReader.JobPod> pods = reader.jobPods(object);
      JobStatus status = reader.status(object, pods.stream().map(JobReader.JobPod::info).toList());
      JobPhase phase = status.phase();
      if (phase != previous) {
        progress.onEvent(new ProgressEvent.PhaseChanged(job.name(), previous, phase,
            countByPhase(status.pods())));
        LOG.debug("{} is {}", job, phase);
        previous = phase;
      }
      if (phase == JobPhase.SUCCEEDED) {
        return status;
      }
      if (phase == JobPhase.FAILED) {
        throw FailureReport.explain(client, job, status,
            pods.stream().map(JobReader.JobPod::object).toList());
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new JobTimeoutException(status, timeout, null);
      }
      Timings.sleep(Duration.ofNanos(Math.min(left, timings.poll().toNanos())),
          "wait for " + job);
    }
  }

  /** The logs of every replica's training container; see {@link JobLogs}. */
  @Override
  public JobLogs logs() {
    return new KubernetesJobLogs(rest, job, timings);
  }

  /**
   * Deletes the job with Foreground propagation, so its pods, Services and owned objects go first,
   * and returns once the job object is gone (at most two minutes, then a
   * {@link FairingException} names what holds it). Deleting a job that is already gone does
   * nothing.
   */
  @Override
  public void delete() {
    boolean deleted = Deletion.deleteAndWait(rest.get(), job.resource(), job.ns(), job.name(),
        Deletion.FOREGROUND, timings);
    LOG.info(deleted ? "Deleted {}" : "{} was already gone", job);
  }

  private static Map<String, Integer> countByPhase(List<PodInfo> pods) {
    Map<String, Integer> counts = new TreeMap<>();
    pods.forEach(p -> counts.merge(p.phase(), 1, Integer::sum));
    return counts;
  }

  @Override
  public String toString() {
    return job.kind() + " " + job.namespace() + "/" + job.name();
  }
}

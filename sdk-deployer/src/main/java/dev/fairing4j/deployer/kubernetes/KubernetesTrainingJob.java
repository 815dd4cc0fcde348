package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.MetricParser;
import dev.fairing4j.core.OnTimeout;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.core.internal.ProgressTap;
import dev.fairing4j.core.internal.WaitedPhases;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.Metadata;
import dev.fairing4j.deployer.job.internal.OwnedObjects;
import dev.fairing4j.deployer.kubernetes.internal.diagnosis.JobCompletion;
import dev.fairing4j.deployer.kubernetes.internal.diagnosis.StuckPods;
import dev.fairing4j.deployer.kubernetes.internal.jobs.Deletion;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobKinds;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobReader;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobWatchHub;
import dev.fairing4j.deployer.kubernetes.internal.logs.FollowedLines;
import dev.fairing4j.deployer.kubernetes.internal.logs.KubernetesJobLogs;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import dev.fairing4j.deployer.trainer.internal.TrainJobStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A handle on a PyTorchJob, TFJob (or other Kubeflow kind), Kubeflow Trainer v2 TrainJob or batch
 * Job on a Kubernetes cluster.
 * Every call reads the cluster afresh; the handle holds no open connection, so it can sit in a
 * notebook variable for hours.
 *
 * <p>{@link #waitForCompletion} follows a watch on the job, resuming after dropped connections
 * and relisting after 410 Gone; it polls only where the API server refuses watches. Handles
 * from one cluster value (or one {@link dev.fairing4j.deployer.TrainingClient}) share that watch:
 * one list+watch per namespace and kind, however many jobs are being waited for.
 * {@link #logs()} follows live log streams.
 */
public final class KubernetesTrainingJob implements TrainingJob {
  static {
    // TensorBoard adds companions through OwnedObjects.of(job); ClusterBackends says why so.
    OwnedObjects.register(KubernetesTrainingJob.class, job -> job::createOwned);
  }

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesTrainingJob.class);

  private final Supplier<KubeRest> rest;
  // Null for a handle that follows its job with a watch of its own.
  private final Supplier<JobWatchHub> watches;
  private final JobRef job;
  private final Timings timings;
  private final ProgressListener progress;
  // The runtime this handle was made under: its log followers are that runtime's.
  private final Owner owner = Owner.current();
  /** What this handle's log streams delivered, bounded: its logs outlive the pods. */
  private final FollowedLines followed = new FollowedLines();
  // The job as its create returned it (a submitted handle): a wait starts from it instead of
  // reading the job again.
  private final Optional<Map<String, Object>> created;

  KubernetesTrainingJob(Supplier<KubeRest> rest, JobRef job, Timings timings,
      ProgressListener progress) {
    this(rest, null, job, timings, progress);
  }

  /** A handle whose waits share the watches of {@code watches} with the other handles. */
  KubernetesTrainingJob(Supplier<KubeRest> rest, Supplier<JobWatchHub> watches, JobRef job,
      Timings timings, ProgressListener progress) {
    this(rest, watches, job, timings, progress, Optional.empty());
  }

  /** A handle on a job just created, as {@code created}. */
  KubernetesTrainingJob(Supplier<KubeRest> rest, Supplier<JobWatchHub> watches, JobRef job,
      Timings timings, ProgressListener progress, Optional<Map<String, Object>> created) {
    KernelBridge.install();  // a job handle is displayable: the first one registers the renderer
    this.rest = Objects.requireNonNull(rest, "rest");
    this.watches = watches;
    this.job = Objects.requireNonNull(job, "job");
    this.timings = Objects.requireNonNull(timings, "timings");
    this.progress = Objects.requireNonNull(progress, "progress");
    this.created = Objects.requireNonNull(created, "created");
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
   * The metrics every replica logged (see {@link TrainingJob#metrics(MetricParser)}); for a
   * TrainJob whose trainer reports {@code status.trainerStatus} (Trainer v2.3 with the
   * TrainJobStatus gate), also that report, as the source {@code trainer}: its progress in
   * percent of the whole job and its metrics.
   */
  @Override
  public JobMetrics metrics(MetricParser parser) {
    JobMetrics fromLogs = TrainingJob.super.metrics(parser);
    if (!JobKinds.isTrainJob(job.kind())) {
      return fromLogs;
    }
    return new JobReader(rest.get(), job).object().flatMap(TrainJobStatus::trainerReport)
        .map(r -> fromLogs.plus("trainer", r.values(), r.time())).orElse(fromLogs);
  }

  /**
   * The cluster's Event objects about the job, its pods and (for a TrainJob) its JobSet and Jobs,
   * Normal and Warning, oldest first: the operator's (SuccessfulCreatePod, ExitedWithCode, the
   * job's end), the scheduler's and the kubelet's (Scheduled, Pulled, Started, BackOff). The API
   * server keeps events for about an hour, so an old job's list may be short.
   *
   * @throws KubernetesApiException with {@link KubernetesApiException.Problem#NOT_FOUND} when the
   *     job no longer exists, or as the API server refuses to list events (RBAC: {@code list} on
   *     {@code events})
   */
  @Override
  public List<JobEvent> events() {
    return new JobReader(rest.get(), job).events();
  }

  /**
   * Reads the job's conditions (the phase by the operator's precedence rule), replica counts,
   * times and pods, each pod with its replica, phase, node and why it is not running
   * (Unschedulable with the scheduler's message, ErrImagePull / ImagePullBackOff with the image,
   * CrashLoopBackOff with the last lines of the crashed container), and the newest Warning events
   * on the job and its pods as {@link JobStatus#warnings()}. Events and logs are read best effort
   * and never fail the status.
   *
   * @throws KubernetesApiException with {@link KubernetesApiException.Problem#NOT_FOUND} when the
   *     job no longer exists
   */
  @Override
  public JobStatus status() {
    return new JobReader(rest.get(), job).status();
  }

  /** The job object's {@code metadata.labels}; empty once it is gone. */
  @Override
  public Map<String, String> labels() {
    return new JobReader(rest.get(), job).object().map(Metadata::labelsOf).orElse(Map.of());
  }

  /**
   * Follows the job until it succeeds, fails or {@code timeout} passes, and leaves it running on
   * timeout; see {@link #waitForCompletion(Duration, OnTimeout)}.
   */
  @Override
  public JobStatus waitForCompletion(Duration timeout) {
    return waitForCompletion(timeout, OnTimeout.KEEP);
  }

  /**
   * Follows the job until it succeeds, fails or {@code timeout} passes, reporting phase changes
   * to the pipeline's progress listener. The wait is driven by a watch on the job: a dropped
   * connection is resumed from the last resourceVersion and a 410 Gone by listing the job again,
   * so a terminal condition is never missed. Handles of one cluster value share one such watch
   * per namespace and kind (jobs labelled {@code app.kubernetes.io/managed-by=fairing4j}); a job
   * created by another tool, without that label, gets a watch of its own. Only when the API
   * server refuses to watch (e.g. no {@code watch} permission) does it fall back to polling
   * every two seconds.
   *
   * <p>The deadline is enforced here rather than left to the operator's
   * {@code activeDeadlineSeconds}, which can fire late: on timeout the job is left running,
   * deleted or suspended as {@code onTimeout} says, then the exception is thrown.
   *
   * @throws dev.fairing4j.core.JobFailedException with the failed replica, its exit code, the
   *     operator's message, the replica's last log lines and the Warning events
   * @throws JobTimeoutException when {@code timeout} passes first; its message says what was done
   *     with the job
   */
  @Override
  public JobStatus waitForCompletion(Duration timeout, OnTimeout onTimeout) {
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(onTimeout, "onTimeout");
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    // Reads inside the wait ride out a hiccuping server until the wait's deadline, not beyond.
    JobCompletion completion = new JobCompletion(rest.get().until(deadline), job, timings,
        progress);
    Optional<JobStatus> done = follow(completion, deadline);
    if (done.isPresent()) {
      return done.get();
    }
    JobStatus last = explained(completion.lastStatus());
    String action = switch (onTimeout) {
      case KEEP -> null;
      case DELETE -> {
        delete();
        yield "deleted it";
      }
      case SUSPEND -> {
        suspend();
        yield "suspended it (resume by setting " + suspendField() + " to false)";
      }
    };
    throw new JobTimeoutException(last, timeout, action);
  }

  /**
   * Follows the job until it is in one of {@code phases}, on the same watch as
   * {@link #waitForCompletion(Duration, OnTimeout)} (the cluster's shared watch for the SDK's
   * jobs), telling {@code onChange} of each phase seen; on timeout the job keeps running.
   *
   * @throws dev.fairing4j.core.JobFailedException when the job fails and {@code phases} has no
   *     {@code FAILED}, with the same report as {@code waitForCompletion}
   * @throws JobTimeoutException when {@code timeout} passes first
   */
  @Override
  public JobStatus waitFor(Set<JobPhase> phases, Duration timeout,
      Consumer<JobStatus> onChange) {
    Set<JobPhase> wanted = WaitedPhases.of(phases);
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(onChange, "onChange");
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    JobCompletion completion = new JobCompletion(rest.get().until(deadline), job, timings,
        progress, wanted, onChange);
    return follow(completion, deadline).orElseThrow(() -> new JobTimeoutException(
        explained(completion.lastStatus()), timeout, null));
  }

  // Pods that wait (Unschedulable, an image that does not pull) are reported as it happens.
  private Optional<JobStatus> follow(JobCompletion completion, long deadline) {
    try (StuckPods stuck = StuckPods.start(new JobReader(rest.get(), job), job.name(),
        completion::phase, progress, timings.poll().multipliedBy(2),
        timings.poll().multipliedBy(10))) {
      return watches == null ? completion.await(deadline)
          : completion.await(deadline, watches.get(), created);
    }
  }

  // The wait reads no events and no crashed container's log; the timeout's message needs them.
  private JobStatus explained(JobStatus watched) {
    try {
      return status();
    } catch (FairingException unreadable) {
      return watched;
    }
  }

  /**
   * Suspends the job: the operator (the Job controller, the Trainer) deletes its pods and keeps
   * the object, so it can be resumed later. Kubeflow v1 kinds through
   * {@code spec.runPolicy.suspend}, batch Jobs and TrainJobs through {@code spec.suspend}.
   */
  public void suspend() {
    rest.get().mergePatch(job.resource(), job.ns(), job.name(),
        JobKinds.suspendPatch(job.kind(), true));
    LOG.info("Suspended {}", job);
  }

  /**
   * Resumes a suspended job: its controller creates the pods again (for a TrainJob the
   * {@code activeDeadlineSeconds} clock starts again).
   */
  public void resume() {
    rest.get().mergePatch(job.resource(), job.ns(), job.name(),
        JobKinds.suspendPatch(job.kind(), false));
    LOG.info("Resumed {}", job);
  }

  private String suspendField() {
    return JobKinds.suspendField(job.kind());
  }

  /**
   * The logs of every replica's training container; see {@link JobLogs}. What this handle
   * followed stays readable here after the pods are gone (the newest 20,000 lines).
   */
  @Override
  public JobLogs logs() {
    // Followed, the lines also report training progress to the pipeline's listener.
    return ProgressTap.wrap(new KubernetesJobLogs(rest, job, timings, followed), job.name(),
        progress, owner);
  }

  /**
   * Deletes the job with Foreground propagation, so its pods, Services and owned objects go first,
   * and returns once the job object and its pods (a TrainJob's JobSet and Jobs too) are gone (at
   * most two minutes, then a {@link FairingException} names what holds them). Deleting a job
   * that is already gone does nothing.
   */
  @Override
  public void delete() {
    boolean deleted = Deletion.deleteJobAndWait(rest.get(), job, timings);
    LOG.info(deleted ? "Deleted {}" : "{} was already gone", job);
  }

  /**
   * Creates {@code objects} owned by this job (ownerReference with its uid, blockOwnerDeletion),
   * so a Foreground {@link #delete()} removes them first; an object that exists is kept.
   */
  List<Map<String, Object>> createOwned(List<Map<String, Object>> objects) {
    KubeRest client = rest.get();
    Map<String, Object> owner = new JobReader(client, job).requireObject();
    Map<String, Object> reference = new LinkedHashMap<>();
    reference.put("apiVersion", JsonTree.string(owner, "apiVersion")
        .orElse(job.resource().apiVersion()));
    reference.put("kind", job.kind());
    reference.put("name", job.name());
    reference.put("uid", JsonTree.string(owner, "metadata", "uid").orElse(""));
    reference.put("blockOwnerDeletion", true);
    List<Map<String, Object>> stored = new ArrayList<>();
    for (Map<String, Object> object : objects) {
      Map<String, Object> copy = new LinkedHashMap<>(object);
      Map<String, Object> metadata = new LinkedHashMap<>(JsonTree.map(object, "metadata"));
      metadata.put("namespace", job.namespace());
      metadata.put("ownerReferences", List.of(reference));
      copy.put("metadata", metadata);
      ResourceRef resource = ResourceRef.of(String.valueOf(copy.get("apiVersion")),
          String.valueOf(copy.get("kind")));
      String name = String.valueOf(metadata.get("name"));
      try {
        stored.add(client.create(resource, job.ns(), copy));
        LOG.info("Created {} {} owned by {}", resource.kind(), name, job);
      } catch (KubernetesApiException e) {
        if (e.problem() != KubernetesApiException.Problem.ALREADY_EXISTS) {
          throw e;
        }
        stored.add(client.find(resource, job.ns(), name).orElseThrow(() -> e));
      }
    }
    return stored;
  }

  @Override
  public String toString() {
    return job.kind() + " " + job.namespace() + "/" + job.name();
  }
}

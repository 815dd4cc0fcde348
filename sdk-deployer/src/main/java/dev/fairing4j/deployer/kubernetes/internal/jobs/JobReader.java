package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ReplicaStatus;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.Metadata;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.trainer.internal.TrainJobStatus;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a job's status and pods from the cluster. Kubeflow kinds report conditions the operator
 * way; a batch Job's Complete / Failed / Suspended conditions are mapped onto the same phases, and
 * without a terminal condition it is Running while it has active pods, else Created. A TrainJob's
 * Suspended / Complete / Failed are mapped by {@link TrainJobStatus} (Queued when Kueue holds it,
 * Running by its trainer job or pods); its pods are the JobSet's, found by the
 * {@code jobset.sigs.k8s.io/jobset-name} label, and its warnings include those of its JobSet and
 * Jobs.
 */
public final class JobReader {
  private static final String KUBEFLOW_JOB_LABEL = "training.kubeflow.org/job-name";
  private static final ResourceRef JOBSET = ResourceRef.of("jobset.x-k8s.io/v1alpha2", "JobSet");
  private static final ResourceRef BATCH_JOBS = ResourceRef.of("batch/v1", JobKinds.BATCH_JOB);
  private static final Logger LOG = LoggerFactory.getLogger(JobReader.class);
  /** At most this many Warning events in a status, the newest. */
  public static final int STATUS_WARNINGS = 10;
  /** How many lines of a crashed container's previous log a CrashLoopBackOff pod shows. */
  public static final int CRASH_LINES = 5;
  /** At most this many CrashLoopBackOff pods have their previous log read per status. */
  public static final int CRASH_LOGS = 3;
  /** The server-side bound of one previous-log read (a line may be a huge progress bar). */
  private static final int CRASH_BYTES = 16 * 1024;
  /** Each shown line is cut here so the pod table stays readable. */
  private static final int LINE_CHARS = 200;
  private static final String CRASH_LOOP = "CrashLoopBackOff";

  private final KubeRest rest;
  private final JobRef job;

  /** Reads {@code job} through {@code rest}. */
  public JobReader(KubeRest rest, JobRef job) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.job = Objects.requireNonNull(job, "job");
  }

  /** The job object; empty when it does not exist (any more). */
  public Optional<Map<String, Object>> object() {
    return rest.find(job.resource(), job.ns(), job.name());
  }

  /** The job object, or a NOT_FOUND error that says it is gone. */
  public Map<String, Object> requireObject() {
    return object().orElseThrow(() -> new KubernetesApiException(Problem.NOT_FOUND,
        "read " + job.kind(), job.namespace() + "/" + job.name(),
        job.kind() + " " + job.name() + " does not exist in namespace " + job.namespace(),
        "it was deleted, or removed by its ttlSecondsAfterFinished; list jobs with 'kubectl get "
            + job.resource().kubectlName() + " -n " + job.namespace() + "'", 404, null));
  }

  /**
   * The full status: conditions, replica counts, times, pods and the Warning events on the job
   * and its pods. A pod in CrashLoopBackOff has the last lines its previous container wrote
   * added to its message. Events and logs are best effort: what cannot be read is left out, it
   * never fails the status.
   */
  public JobStatus status() {
    return describe(requireObject());
  }

  /**
   * The full status of {@code object} as read: its pods with the last lines of crash-looping
   * containers, and the Warning events of the job and its pods.
   */
  public JobStatus describe(Map<String, Object> object) {
    // A status asked for by a person looks everywhere, old operators' labels too.
    List<JobPod> jobPods = read(object, podObjects());
    return status(object, withCrashLines(jobPods), warnings(object, jobPods));
  }

  /** The status of {@code object} with {@code pods} and no warnings (a cheap read, for polls). */
  public JobStatus status(Map<String, Object> object, List<PodInfo> pods) {
    return status(object, pods, List.of());
  }

  /** The status of {@code object} with {@code pods} and {@code warnings}. */
  public JobStatus status(Map<String, Object> object, List<PodInfo> pods,
      List<String> warnings) {
    Map<String, Object> status = JsonTree.map(object, "status");
    if (JobKinds.isTrainJob(job.kind())) {
      return new JobStatus(job.name(), job.kind(), TrainJobStatus.conditions(object, pods),
          TrainJobStatus.replicas(pods), TrainJobStatus.startTime(object),
          TrainJobStatus.completionTime(object), pods, warnings);
    }
    List<JobCondition> conditions = JobKinds.isBatch(job.kind()) ? batchConditions(status)
        : conditions(status);
    Map<String, ReplicaStatus> replicas = new LinkedHashMap<>();
    if (JobKinds.isBatch(job.kind())) {
      ReplicaStatus counts = counts(status);
      if (!counts.equals(ReplicaStatus.NONE) || !pods.isEmpty()) {
        replicas.put(JobKinds.BATCH_REPLICA_TYPE, counts);
      }
    } else {
      JsonTree.map(status, "replicaStatuses").forEach((type, value) ->
          replicas.put(type, counts(value)));
    }
    return new JobStatus(job.name(), job.kind(), conditions, replicas,
        JsonTree.instant(status, "startTime"), JsonTree.instant(status, "completionTime"), pods,
        warnings);
  }

  /**
   * The newest {@link #STATUS_WARNINGS} Warning events on the job {@code object} and its
   * {@code pods}, oldest first (not those of an earlier job or pod of the same name); empty when
   * they cannot be read (e.g. no permission to list events).
   */
  public List<String> warnings(Map<String, Object> object, List<JobPod> pods) {
    try {
      return WarningEvents.about(rest, job.namespace(), object, related(object),
          pods.stream().map(JobPod::object).toList(), STATUS_WARNINGS);
    } catch (RuntimeException e) {
      LOG.debug("Could not read the events of {}: {}", job, e.getMessage());
      return List.of();
    }
  }

  /**
   * Every event of the job, its pods and the objects between them ({@link #related}), Normal and
   * Warning, oldest first.
   *
   * @throws KubernetesApiException with {@link Problem#NOT_FOUND} when the job no longer exists,
   *     or as the API server refuses the list (no permission to list events, say)
   */
  public List<JobEvent> events() {
    Map<String, Object> object = requireObject();
    List<Map<String, Object>> involved = new ArrayList<>(related(object));
    read(object, podObjects()).forEach(pod -> involved.add(pod.object()));
    return WarningEvents.all(rest, job.namespace(), WarningEvents.involved(object, involved));
  }

  /**
   * Objects between the job and its pods whose events explain it: for a TrainJob its JobSet
   * (a failed Job, a name too long) and the JobSet's Jobs (BackoffLimitExceeded, a deadline).
   * Best effort: what cannot be read (no RBAC on JobSets, say) is left out.
   */
  public List<Map<String, Object>> related(Map<String, Object> object) {
    if (!JobKinds.isTrainJob(job.kind())) {
      return List.of();
    }
    List<Map<String, Object>> related = new ArrayList<>();
    try {
      rest.find(JOBSET, job.ns(), job.name()).ifPresent(related::add);
    } catch (RuntimeException e) {
      LOG.debug("Could not read the JobSet of {}: {}", job, e.getMessage());
    }
    try {
      related.addAll(rest.list(BATCH_JOBS, job.ns(), Optional.of(TrainJobs.JOBSET_NAME_LABEL
          + "=" + job.name()), Optional.empty()));
    } catch (RuntimeException e) {
      LOG.debug("Could not read the Jobs of {}: {}", job, e.getMessage());
    }
    return related;
  }

  /**
   * The pods' infos, those in CrashLoopBackOff with the last lines of their crashed container
   * appended to the message: the kubelet's message only says it backs off, the log says why.
   * Only the first {@link #CRASH_LOGS} such pods are read, so a status of a large job whose
   * workers all crash the same way costs a few requests, not one per worker.
   */
  private List<PodInfo> withCrashLines(List<JobPod> pods) {
    List<PodInfo> infos = new ArrayList<>();
    int read = 0;
    for (JobPod pod : pods) {
      PodInfo info = pod.info();
      Optional<String> container = crashedContainer(pod.object());
      if (read < CRASH_LOGS && info.reason().filter(CRASH_LOOP::equals).isPresent()
          && container.isPresent()) {
        read++;
        List<String> lines = previousLines(info.name(), container.get());
        if (!lines.isEmpty()) {
          info = new PodInfo(info.name(), info.replicaType(), info.index(), info.phase(),
              info.node(), info.reason(), Optional.of(info.message().map(m -> m + "; ")
                  .orElse("") + "last lines: " + String.join(" | ", lines)),
              info.restarts(), info.exitCode());
        }
      }
      infos.add(info);
    }
    return infos;
  }

  /** The container PodDiagnosis blames, when it waits in CrashLoopBackOff. */
  private static Optional<String> crashedContainer(Map<String, Object> pod) {
    for (String list : List.of("initContainerStatuses", "containerStatuses")) {
      for (Map<String, Object> status : JsonTree.maps(pod, "status", list)) {
        Optional<String> reason = JsonTree.text(status, "state", "waiting", "reason")
            .filter(PodDiagnosis.BAD_WAITING::contains);
        if (reason.isPresent()) {
          return reason.get().equals(CRASH_LOOP) ? JsonTree.text(status, "name")
              : Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /** The last non-blank lines of the previous instance's log, each bounded; none on errors. */
  private List<String> previousLines(String pod, String container) {
    try {
      List<String> lines = rest.readPreviousLog(job.namespace(), pod, container, CRASH_LINES,
          CRASH_BYTES).lines().filter(l -> !l.isBlank()).map(String::strip)
          .map(l -> l.length() > LINE_CHARS ? l.substring(0, LINE_CHARS) + "..." : l).toList();
      return lines.subList(Math.max(0, lines.size() - CRASH_LINES), lines.size());
    } catch (RuntimeException e) {
      // e.g. 400 "previous terminated container not found" after a node restart
      LOG.debug("Could not read the previous log of {}/{}: {}", pod, container, e.getMessage());
      return List.of();
    }
  }

  /**
   * One pod of the job: as read into a {@link PodInfo}, and as the API returned it.
   *
   * @param info the pod's replica, phase and diagnosis
   * @param object the pod object
   */
  public record JobPod(PodInfo info, Map<String, Object> object) {}

  /** The job's pods, Master/Chief first, then by type and index. */
  public List<PodInfo> pods(Map<String, Object> object) {
    return jobPods(object).stream().map(JobPod::info).toList();
  }

  /**
   * The job's pods with their objects, in the order of {@link #pods}; the pre-1.6 labels are
   * asked only while the job reports active replicas (see {@link #podObjects(Map)}).
   */
  public List<JobPod> jobPods(Map<String, Object> object) {
    return read(object, podObjects(object));
  }

  private List<JobPod> read(Map<String, Object> object, List<Map<String, Object>> podObjects) {
    List<String> replicaTypes = replicaTypes(object);
    if (JobKinds.servesModel(job.kind())) {
      return deploymentPods(podObjects);
    }
    return podObjects.stream()
        .map(p -> new JobPod(PodDiagnosis.read(p, job.kind(), replicaTypes), p))
        .sorted(Comparator.comparingInt((JobPod p) -> JobKinds.rank(p.info().replicaType()))
            .thenComparing(p -> p.info().replicaType()).thenComparingInt(p -> p.info().index())
            .thenComparing(p -> p.info().name()))
        .toList();
  }

  // A Deployment's (an InferenceService's) pods have no index of their own: they are numbered
  // by name, so each has its own replica name (predictor-0, predictor-1) in logs and tables.
  private List<JobPod> deploymentPods(List<Map<String, Object>> podObjects) {
    List<Map<String, Object>> sorted = podObjects.stream().sorted(Comparator.comparing(
        p -> JsonTree.text(p, "metadata", "name").orElse(""))).toList();
    List<JobPod> pods = new ArrayList<>();
    for (int i = 0; i < sorted.size(); i++) {
      PodInfo read = PodDiagnosis.read(sorted.get(i), job.kind(), List.of());
      pods.add(new JobPod(new PodInfo(read.name(), read.replicaType(), i, read.phase(),
          read.node(), read.reason(), read.message(), read.restarts(), read.exitCode()),
          sorted.get(i)));
    }
    return pods;
  }

  /**
   * The job's pods as objects: by the operator's {@code training.kubeflow.org/job-name} label,
   * falling back to the pre-1.6 {@code group-name}/{@code job-name} labels; batch Jobs by
   * {@code job-name}. Pods controlled by an object of another kind (a TFJob of the same name) are
   * left out.
   */
  public List<Map<String, Object>> podObjects() {
    return podObjects(true);
  }

  /**
   * The pods of the job {@code object}, like {@link #podObjects()}, but asking by the pre-1.6
   * labels only when the job reports active replicas that the current label did not find: a
   * finished job whose pods were cleaned up costs one request, not two.
   */
  public List<Map<String, Object>> podObjects(Map<String, Object> object) {
    return podObjects(JsonTree.map(JsonTree.map(object, "status"), "replicaStatuses").values()
        .stream().anyMatch(r -> JsonTree.integer(r, "active").orElse(0) > 0));
  }

  private List<Map<String, Object>> podObjects(boolean legacyToo) {
    List<String> selectors = JobKinds.isDeployment(job.kind())
        ? List.of(Metadata.JOB_NAME + "=" + job.name())
        : JobKinds.INFERENCE_SERVICE.equals(job.kind())
            ? List.of(JobKinds.INFERENCE_SERVICE_LABEL + "=" + job.name())
        : JobKinds.isBatch(job.kind())
        ? List.of("job-name=" + job.name(), "batch.kubernetes.io/job-name=" + job.name())
        : JobKinds.isTrainJob(job.kind())
            ? List.of(TrainJobs.JOBSET_NAME_LABEL + "=" + job.name())
            : legacyToo ? List.of(KUBEFLOW_JOB_LABEL + "=" + job.name(),
                "group-name=kubeflow.org,job-name=" + job.name())
            : List.of(KUBEFLOW_JOB_LABEL + "=" + job.name());
    for (String selector : selectors) {
      List<Map<String, Object>> pods = rest.list(ResourceRef.PODS, job.ns(),
          Optional.of(selector), Optional.empty()).stream().filter(this::controlledByJobKind)
          .toList();
      if (!pods.isEmpty()) {
        return pods;
      }
    }
    return List.of();
  }

  private boolean controlledByJobKind(Map<String, Object> pod) {
    return controlledBy(pod, job.kind());
  }

  /**
   * Whether {@code pod} is controlled by an object of {@code kind} (or by nobody): a TrainJob's
   * pods belong to the batch Jobs of its JobSet, a Deployment's (and an InferenceService's) to
   * ReplicaSets.
   */
  public static boolean controlledBy(Map<String, Object> pod, String kind) {
    String controller = JobKinds.isTrainJob(kind) ? JobKinds.BATCH_JOB
        : JobKinds.servesModel(kind) ? "ReplicaSet" : kind;
    for (Map<String, Object> owner : JsonTree.maps(pod, "metadata", "ownerReferences")) {
      if (Boolean.TRUE.equals(owner.get("controller"))) {
        return controller.equals(JsonTree.string(owner, "kind").orElse(""));
      }
    }
    return true;
  }

  /** The replica types as the spec spells them, from any {@code *ReplicaSpecs} map. */
  private static List<String> replicaTypes(Map<String, Object> object) {
    List<String> types = new ArrayList<>();
    JsonTree.map(object, "spec").forEach((key, value) -> {
      if (key.endsWith("ReplicaSpecs") && value instanceof Map<?, ?> specs) {
        specs.keySet().forEach(k -> types.add(String.valueOf(k)));
      }
    });
    return types;
  }

  private static List<JobCondition> conditions(Map<String, Object> status) {
    List<JobCondition> conditions = new ArrayList<>();
    for (Map<String, Object> c : JsonTree.maps(status, "conditions")) {
      Optional<String> type = JsonTree.text(c, "type");
      if (type.isEmpty()) {
        continue;
      }
      conditions.add(JobCondition.of(type.get(), JsonTree.string(c, "status").orElse(""),
          JsonTree.string(c, "reason").orElse(""), JsonTree.string(c, "message").orElse(""),
          JsonTree.instant(c, "lastTransitionTime")
              .or(() -> JsonTree.instant(c, "lastUpdateTime")).orElse(null)));
    }
    return conditions;
  }

  private static List<JobCondition> batchConditions(Map<String, Object> status) {
    List<JobCondition> conditions = new ArrayList<>();
    boolean settled = false;
    for (JobCondition c : conditions(status)) {
      String type = switch (c.type()) {
        case "Complete" -> "Succeeded";
        default -> c.type(); // Failed and Suspended share the operator's names
      };
      JobCondition mapped = new JobCondition(type, c.status(), c.reason(), c.message(),
          c.lastTransitionTime());
      conditions.add(mapped);
      if (c.status() && List.of("Succeeded", "Failed", "Suspended").contains(type)) {
        settled = true;
      }
    }
    if (!settled) {
      int active = JsonTree.integer(status, "active").orElse(0);
      conditions.add(active > 0
          ? JobCondition.isTrue("Running", "JobRunning", active + " active pod(s)")
          : JobCondition.isTrue("Created", "JobCreated", "no active pods"));
    }
    return conditions;
  }

  private static ReplicaStatus counts(Object value) {
    return new ReplicaStatus(JsonTree.integer(value, "active").orElse(0),
        JsonTree.integer(value, "succeeded").orElse(0), JsonTree.integer(value, "failed")
            .orElse(0));
  }
}

package dev.fairing4j.deploy.kubernetes.internal;

import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ReplicaStatus;
import dev.fairing4j.deploy.kubernetes.KubernetesApiException;
import dev.fairing4j.deploy.kubernetes.KubernetesApiException.Problem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a job's status and pods from the cluster. Kubeflow kinds report conditions the operator
 * way; a batch Job's Complete / Failed / Suspended conditions are mapped onto the same phases, and
 * without a terminal condition it is Running while it has active pods, else Created.
 */
public final class JobReader {
  private static final String KUBEFLOW_JOB_LABEL = "training.kubeflow.org/job-name";

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

  /** The full status: conditions, replica counts, times and pods. */
  public JobStatus status() {
    Map<String, Object> object = requireObject();
    return status(object, pods(object));
  }

  /** The status of {@code object} with {@code pods}. */
  public JobStatus status(Map<String, Object> object, List<PodInfo> pods) {
    Map<String, Object> status = JsonTree.map(object, "status");
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
        JsonTree.instant(status, "startTime"), JsonTree.instant(status, "completionTime"), pods);
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

  /** The job's pods with their objects, in the order of {@link #pods}. */
  public List<JobPod> jobPods(Map<String, Object> object) {
    List<String> replicaTypes = replicaTypes(object);
    return podObjects().stream()
        .map(p -> new JobPod(PodDiagnosis.read(p, job.kind(), replicaTypes), p))
        .sorted(Comparator.comparingInt((JobPod p) -> JobKinds.rank(p.info().replicaType()))
            .thenComparing(p -> p.info().replicaType()).thenComparingInt(p -> p.info().index())
            .thenComparing(p -> p.info().name()))
        .toList();
  }

  /**
   * The job's pods as objects: by the operator's {@code training.kubeflow.org/job-name} label,
   * falling back to the pre-1.6 {@code group-name}/{@code job-name} labels; batch Jobs by
   * {@code job-name}. Pods controlled by an object of another kind (a TFJob of the same name) are
   * left out.
   */
  public List<Map<String, Object>> podObjects() {
    List<String> selectors = JobKinds.isBatch(job.kind())
        ? List.of("job-name=" + job.name(), "batch.kubernetes.io/job-name=" + job.name())
        : List.of(KUBEFLOW_JOB_LABEL + "=" + job.name(),
            "group-name=kubeflow.org,job-name=" + job.name());
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
    for (Map<String, Object> owner : JsonTree.maps(pod, "metadata", "ownerReferences")) {
      if (Boolean.TRUE.equals(owner.get("controller"))) {
        return job.kind().equals(JsonTree.string(owner, "kind").orElse(""));
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

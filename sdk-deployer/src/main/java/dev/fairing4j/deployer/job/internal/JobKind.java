package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.deployer.job.JobOptions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What differs between job kinds when rendering: the API type, the training container's name and
 * port, the replica slots, the environment the SDK synthesizes, the spec around the pod
 * templates and any objects the job needs. {@link JobRendering} does the rest the same way for
 * every kind.
 */
public interface JobKind {
  /** E.g. {@code kubeflow.org/v1} or {@code batch/v1}. */
  String apiVersion();

  /** E.g. {@code PyTorchJob}. */
  String kind();

  /** The training container's name, e.g. {@code pytorch}; mutators find it by this name. */
  String containerName();

  /** The port the training container declares, if any. */
  Optional<NamedPort> port();

  /** The pod templates to render, in manifest order (types with no replicas left out). */
  List<ReplicaSlot> slots();

  /** Characters appended to the job name in pod and Service names (hostnames are labels). */
  int reservedNameSuffix();

  /**
   * Kind-specific checks of the whole configuration (counts, policies), before any rendering.
   *
   * @throws dev.fairing4j.core.InvalidInputException naming the field and the fix
   */
  void validate(JobOptions options);

  /** Environment entries ({@code name}/{@code value}/{@code valueFrom}) every pod gets first. */
  default List<Map<String, Object>> synthesizedEnv(String jobName, String namespace) {
    return List.of();
  }

  /**
   * Pod spec fields the kind requires (a batch Job's {@code restartPolicy} and
   * {@code subdomain}); written after the mutators, so they always hold.
   */
  default Map<String, Object> podSpecFields(String jobName) {
    return Map.of();
  }

  /**
   * The training object's {@code spec}, given the finished pod templates in {@link #slots()}
   * order.
   */
  Map<String, Object> spec(String jobName, JobOptions options,
      List<Map<String, Object>> templates);

  /**
   * Objects created before the training object, e.g. a headless Service. {@code metadata} is a
   * fresh copy of the job's own object metadata (name, namespace, labels, annotations).
   */
  default List<Map<String, Object>> dependencies(String jobName, Map<String, Object> metadata) {
    return List.of();
  }

  /**
   * Whether the submission may reshape the object for the cluster's CRD version (a TrainJob with
   * {@code TrainerApi.AUTO}); see {@link SubmitOptions#adaptTrainerApi()}.
   */
  default boolean adaptTrainerApi() {
    return false;
  }

  /**
   * Annotations only the training object carries (an InferenceService's deployment mode),
   * beside the deployer's own.
   */
  default Map<String, String> trainingObjectAnnotations() {
    return Map.of();
  }

  /** Labels only the training object carries (not dependencies, not pods). */
  default Map<String, String> trainingObjectLabels(JobOptions options) {
    return options.kueueQueue().map(queue -> Map.of(Metadata.KUEUE_QUEUE, queue))
        .orElse(Map.of());
  }
}

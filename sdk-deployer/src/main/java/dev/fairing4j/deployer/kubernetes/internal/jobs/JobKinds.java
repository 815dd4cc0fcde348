package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.deployer.job.internal.ServedModel;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKinds;
import java.util.Map;
import java.util.Optional;

/**
 * Facts about the job kinds that reading status, pods and logs depends on (CONTRACT.md and the
 * Trainer v2 contract): which container is the training container, which replica types come
 * first when listing, and where a kind keeps its {@code suspend} switch.
 */
public final class JobKinds {
  /** The batch/v1 kind. */
  public static final String BATCH_JOB = "Job";
  /** The replica type fairing4j reports for the pods of a plain batch Job. */
  public static final String BATCH_REPLICA_TYPE = "Worker";
  /** Kubeflow Trainer v2's kind. */
  public static final String TRAIN_JOB = "TrainJob";
  /** The kind that serves a model ({@code Deployers.serving}). */
  public static final String DEPLOYMENT = "Deployment";
  /** KServe's kind. */
  public static final String INFERENCE_SERVICE = "InferenceService";
  /** The label KServe puts on an InferenceService's pods. */
  public static final String INFERENCE_SERVICE_LABEL = "serving.kserve.io/inferenceservice";
  /** The replica type fairing4j reports for a serving Deployment's pods. */
  public static final String PREDICTOR_REPLICA_TYPE = "Predictor";

  // The operator's kinds the SDK renders say their own container; the others a job attached by
  // name may be of are listed here.
  private static final Map<String, String> CONTAINERS = Map.of("MPIJob", "mpi", "JAXJob", "jax",
      "PaddleJob", "paddle", TRAIN_JOB, "node", DEPLOYMENT, ServedModel.CONTAINER,
      INFERENCE_SERVICE, ServedModel.CONTAINER);

  // The replica that decides or coordinates the job is listed (and diagnosed) first; a
  // TrainJob's initializers run (and fail) before its nodes.
  private static final Map<String, Integer> ORDER = Map.of("dataset-initializer", -2,
      "model-initializer", -1, "master", 0, "chief", 1, "launcher", 2, "ps", 3, "worker", 4,
      "node", 4, "evaluator", 5);

  private JobKinds() {}

  /** True for the plain batch/v1 Job. */
  public static boolean isBatch(String kind) {
    return BATCH_JOB.equals(kind);
  }

  /** True for a serving Deployment. */
  public static boolean isDeployment(String kind) {
    return DEPLOYMENT.equals(kind);
  }

  /** True for a kind that serves a model: a serving Deployment or an InferenceService. */
  public static boolean servesModel(String kind) {
    return DEPLOYMENT.equals(kind) || INFERENCE_SERVICE.equals(kind);
  }

  /** True for Kubeflow Trainer v2's TrainJob. */
  public static boolean isTrainJob(String kind) {
    return TRAIN_JOB.equals(kind);
  }

  /**
   * Where {@code kind} keeps its suspend switch: {@code spec.suspend} for batch Jobs and
   * TrainJobs, {@code spec.runPolicy.suspend} for the Kubeflow v1 kinds.
   */
  public static String suspendField(String kind) {
    return isBatch(kind) || isTrainJob(kind) ? "spec.suspend" : "spec.runPolicy.suspend";
  }

  /** The merge patch that sets the suspend switch of {@code kind} to {@code suspend}. */
  public static Map<String, Object> suspendPatch(String kind, boolean suspend) {
    return isBatch(kind) || isTrainJob(kind) ? Map.of("spec", Map.of("suspend", suspend))
        : Map.of("spec", Map.of("runPolicy", Map.of("suspend", suspend)));
  }

  /** The operator's training container name for {@code kind}; empty for batch Jobs. */
  public static Optional<String> trainingContainer(String kind) {
    return TrainingKinds.named(kind).map(TrainingKind::containerName)
        .or(() -> Optional.ofNullable(CONTAINERS.get(kind)));
  }

  /** Sort rank of a replica type (any case): Master and Chief first, unknown types last. */
  public static int rank(String replicaType) {
    return ORDER.getOrDefault(replicaType.toLowerCase(java.util.Locale.ROOT), ORDER.size());
  }
}

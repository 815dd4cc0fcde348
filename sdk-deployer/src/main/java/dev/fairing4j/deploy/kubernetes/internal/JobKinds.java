package dev.fairing4j.deploy.kubernetes.internal;

import java.util.Map;
import java.util.Optional;

/**
 * Facts about the job kinds that reading status, pods and logs depends on (CONTRACT.md): which
 * container is the training container, and which replica types come first when listing.
 */
public final class JobKinds {
  /** The batch/v1 kind. */
  public static final String BATCH_JOB = "Job";
  /** The replica type fairing4j reports for the pods of a plain batch Job. */
  public static final String BATCH_REPLICA_TYPE = "Worker";

  private static final Map<String, String> CONTAINERS = Map.of("PyTorchJob", "pytorch",
      "TFJob", "tensorflow", "MPIJob", "mpi", "XGBoostJob", "xgboost", "JAXJob", "jax",
      "PaddleJob", "paddle");

  // The replica that decides or coordinates the job is listed (and diagnosed) first.
  private static final Map<String, Integer> ORDER = Map.of("master", 0, "chief", 1,
      "launcher", 2, "ps", 3, "worker", 4, "evaluator", 5);

  private JobKinds() {}

  /** True for the plain batch/v1 Job. */
  public static boolean isBatch(String kind) {
    return BATCH_JOB.equals(kind);
  }

  /** The operator's training container name for {@code kind}; empty for batch Jobs. */
  public static Optional<String> trainingContainer(String kind) {
    return Optional.ofNullable(CONTAINERS.get(kind));
  }

  /** Sort rank of a replica type (any case): Master and Chief first, unknown types last. */
  public static int rank(String replicaType) {
    return ORDER.getOrDefault(replicaType.toLowerCase(java.util.Locale.ROOT), ORDER.size());
  }
}

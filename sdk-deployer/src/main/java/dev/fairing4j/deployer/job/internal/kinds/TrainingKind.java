package dev.fairing4j.deployer.job.internal.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What an operator does with one kind of replica-spec training job ({@code kubeflow.org/v1}
 * PyTorchJob, TFJob, XGBoostJob): the facts a cluster that imitates the operator (the local
 * cluster, podman) and a cluster that reads its objects (Kubernetes) need, written once in the
 * kind's room. Implementations are stateless, public and have a public no-argument constructor,
 * as {@link java.util.ServiceLoader} needs; {@link TrainingKinds} finds them.
 */
public interface TrainingKind {
  /** {@code kubeflow.org/v1}. */
  String apiVersion();

  /** The kind, e.g. {@code XGBoostJob}. */
  String kind();

  /** The resource name in URLs and RBAC, e.g. {@code xgboostjobs}. */
  String plural();

  /** The spec field holding the replica specs, e.g. {@code xgbReplicaSpecs}. */
  String replicaSpecsField();

  /** The container the operator looks for and injects into, e.g. {@code xgboost}. */
  String containerName();

  /** The name of the container port the operator reads, e.g. {@code xgboostjob-port}. */
  String portName();

  /** The port the operator assumes when the container declares none by {@link #portName()}. */
  int defaultPort();

  /** The restart policy of a replica spec that names none ({@code Never}, {@code OnFailure}). */
  String defaultRestartPolicy();

  /** The replica types the kind allows, in the order their pods start and are listed. */
  List<String> replicaTypes();

  /**
   * The operator webhook's checks beyond types and containers, e.g. "Master.replicas must be 1".
   *
   * @param replicaSpecsPath the field path of the replica specs, for the error
   * @param replicasByType the replica count of each type the job has, in manifest order
   * @throws dev.fairing4j.core.InvalidInputException naming the field and the fix
   */
  void checkReplicas(String replicaSpecsPath, Map<String, Integer> replicasByType);

  /**
   * The variables the operator injects into {@code replica}'s container, in the order it adds
   * them, with host names and ports as {@code topology}'s network gives them.
   *
   * @param spec the job object's {@code spec}
   */
  Map<String, String> injectedEnv(JsonNode spec, ReplicaTopology topology,
      ReplicaTopology.Replica replica);

  /**
   * Whether the job has succeeded by the operator's rule (the Master's success, the Chief's,
   * every Worker's...), given which replicas have; failures are decided by the cluster.
   *
   * @param spec the job object's {@code spec}
   */
  boolean succeeded(JsonNode spec, ReplicaTopology topology,
      Predicate<ReplicaTopology.Replica> replicaSucceeded);
}

package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.deployer.internal.ServedModel;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The job kinds the local cluster can run, with the facts CONTRACT.md gives for each: where the
 * replica specs live, the container the operator injects into, its port and default restart policy.
 */
public enum LocalKind {
  /** Kubeflow PyTorchJob. */
  PYTORCH("PyTorchJob", "pytorchReplicaSpecs", "pytorch", "pytorchjob-port", 23456,
      RestartPolicy.ON_FAILURE, List.of("Master", "Worker")),
  /** Kubeflow TFJob; {@code Master} is the old alias of {@code Chief}. */
  TF("TFJob", "tfReplicaSpecs", "tensorflow", "tfjob-port", 2222, RestartPolicy.NEVER,
      List.of("Chief", "Master", "PS", "Worker", "Evaluator")),
  /**
   * Kubeflow Trainer v2 TrainJob on a torch runtime: one Indexed Job {@code node} of
   * {@code numNodes} pods, as the JobSet the Trainer makes of it; the torch plugin's rendezvous
   * port is 29500 and the JobSet's pods restart OnFailure.
   */
  TRAINJOB("TrainJob", null, "node", null, 29500, RestartPolicy.ON_FAILURE, List.of("node")),
  /** Plain batch/v1 Job, Indexed or not. */
  BATCH("Job", null, null, null, 0, RestartPolicy.NEVER, List.of(BatchNames.TYPE)),
  /**
   * An apps/v1 Deployment serving a model ({@code Deployers.serving}): {@code replicas} pods of
   * one template that restart Always and never complete; each replica's declared port (the
   * model server's 8080) is a free local port, which it reads from {@code PORT}.
   */
  DEPLOYMENT("Deployment", null, ServedModel.CONTAINER, null, 0, RestartPolicy.ALWAYS,
      List.of("Predictor"));

  private final String kind;
  private final String replicaKey;
  private final String containerName;
  private final String portName;
  private final int defaultPort;
  private final RestartPolicy defaultRestartPolicy;
  private final List<String> replicaTypes;

  LocalKind(String kind, String replicaKey, String containerName, String portName,
      int defaultPort, RestartPolicy defaultRestartPolicy, List<String> replicaTypes) {
    this.kind = kind;
    this.replicaKey = replicaKey;
    this.containerName = containerName;
    this.portName = portName;
    this.defaultPort = defaultPort;
    this.defaultRestartPolicy = defaultRestartPolicy;
    this.replicaTypes = replicaTypes;
  }

  /** The kind for a manifest's {@code kind} field. */
  public static Optional<LocalKind> of(String kind) {
    return Arrays.stream(values()).filter(k -> k.kind.equals(kind)).findFirst();
  }

  /** The Kubernetes kind, e.g. {@code PyTorchJob}. */
  public String kind() {
    return kind;
  }

  /**
   * The spec key holding the replica specs, e.g. {@code pytorchReplicaSpecs}; null for Job and
   * TrainJob.
   */
  String replicaKey() {
    return replicaKey;
  }

  /** The container the operator injects its environment into; empty for a plain Job. */
  public Optional<String> containerName() {
    return Optional.ofNullable(containerName);
  }

  /** The name of the operator's port, e.g. {@code pytorchjob-port}; empty for a plain Job. */
  Optional<String> portName() {
    return Optional.ofNullable(portName);
  }

  /** The operator's default port (23456, 2222); 0 for a plain Job. */
  int defaultPort() {
    return defaultPort;
  }

  /** The operator's default restart policy for a replica spec that names none. */
  RestartPolicy defaultRestartPolicy() {
    return defaultRestartPolicy;
  }

  /** Replica types in the order the local cluster starts them. */
  List<String> replicaTypes() {
    return replicaTypes;
  }

  /**
   * True for the Kubeflow kinds, whose status a Kubeflow controller writes (the training
   * operator, or the Trainer for a TrainJob).
   */
  public boolean isKubeflow() {
    return this != BATCH && this != DEPLOYMENT;
  }
}

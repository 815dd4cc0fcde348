package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.deployer.job.internal.ServedModel;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKinds;
import java.util.List;
import java.util.Optional;

/**
 * The job kinds the local cluster can run: the operator's replica-spec kinds, whatever
 * {@link TrainingKinds} provides (PyTorchJob, TFJob, XGBoostJob; their facts live in their
 * rooms), and the three whose controllers the local cluster imitates itself: a Trainer v2
 * TrainJob, a batch Job and a serving Deployment. Those three are single instances, so they
 * compare with {@code ==}.
 */
public final class LocalKind {
  /**
   * Kubeflow Trainer v2 TrainJob on a torch runtime: one Indexed Job {@code node} of
   * {@code numNodes} pods, as the JobSet the Trainer makes of it; the torch plugin's rendezvous
   * port is 29500 and the JobSet's pods restart OnFailure.
   */
  public static final LocalKind TRAINJOB = new LocalKind("TrainJob", Optional.empty(), "node",
      null, 29500, RestartPolicy.ON_FAILURE, List.of("node"));
  /** Plain batch/v1 Job, Indexed or not. */
  public static final LocalKind BATCH = new LocalKind("Job", Optional.empty(), null, null, 0,
      RestartPolicy.NEVER, List.of(BatchNames.TYPE));
  /**
   * An apps/v1 Deployment serving a model ({@code Deployers.serving}): {@code replicas} pods of
   * one template that restart Always and never complete; each replica's declared port (the
   * model server's 8080) is a free local port, which it reads from {@code PORT}.
   */
  public static final LocalKind DEPLOYMENT = new LocalKind("Deployment", Optional.empty(),
      ServedModel.CONTAINER, null, 0, RestartPolicy.ALWAYS, List.of("Predictor"));

  private final String kind;
  private final Optional<TrainingKind> operatorKind;
  private final String containerName;
  private final String portName;
  private final int defaultPort;
  private final RestartPolicy defaultRestartPolicy;
  private final List<String> replicaTypes;

  private LocalKind(String kind, Optional<TrainingKind> operatorKind, String containerName,
      String portName, int defaultPort, RestartPolicy defaultRestartPolicy,
      List<String> replicaTypes) {
    this.kind = kind;
    this.operatorKind = operatorKind;
    this.containerName = containerName;
    this.portName = portName;
    this.defaultPort = defaultPort;
    this.defaultRestartPolicy = defaultRestartPolicy;
    this.replicaTypes = replicaTypes;
  }

  private static LocalKind of(TrainingKind operatorKind) {
    return new LocalKind(operatorKind.kind(), Optional.of(operatorKind),
        operatorKind.containerName(), operatorKind.portName(), operatorKind.defaultPort(),
        RestartPolicy.parse(operatorKind.kind() + " default restartPolicy",
            operatorKind.defaultRestartPolicy()), operatorKind.replicaTypes());
  }

  /** The kind for a manifest's {@code kind} field. */
  public static Optional<LocalKind> of(String kind) {
    for (LocalKind own : List.of(TRAINJOB, BATCH, DEPLOYMENT)) {
      if (own.kind.equals(kind)) {
        return Optional.of(own);
      }
    }
    return TrainingKinds.named(kind).map(LocalKind::of);
  }

  /** Every kind's name, for the error that names what runs locally. */
  static List<String> names() {
    List<String> names = new java.util.ArrayList<>();
    TrainingKinds.all().forEach(k -> names.add(k.kind()));
    names.addAll(List.of(TRAINJOB.kind, "batch/v1 " + BATCH.kind, "a serving "
        + DEPLOYMENT.kind));
    return names;
  }

  /** The Kubernetes kind, e.g. {@code PyTorchJob}. */
  public String kind() {
    return kind;
  }

  /** The operator's description of a replica-spec kind; empty for the other three. */
  public Optional<TrainingKind> operatorKind() {
    return operatorKind;
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

  @Override
  public boolean equals(Object other) {
    return other instanceof LocalKind that && kind.equals(that.kind);
  }

  @Override
  public int hashCode() {
    return kind.hashCode();
  }

  @Override
  public String toString() {
    return kind;
  }
}

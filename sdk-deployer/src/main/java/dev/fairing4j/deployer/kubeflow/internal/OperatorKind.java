package dev.fairing4j.deployer.kubeflow.internal;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What the operator's kinds share: the API version, plural and replica rules every
 * {@code kubeflow.org/v1} kind follows, and the helpers their success rules are made of.
 */
abstract class OperatorKind implements TrainingKind {
  private final String kind;
  private final String replicaSpecsField;
  private final String containerName;
  private final String portName;
  private final int defaultPort;
  private final String defaultRestartPolicy;
  private final List<String> replicaTypes;

  OperatorKind(String kind, String replicaSpecsField, String containerName, String portName,
      int defaultPort, String defaultRestartPolicy, List<String> replicaTypes) {
    this.kind = kind;
    this.replicaSpecsField = replicaSpecsField;
    this.containerName = containerName;
    this.portName = portName;
    this.defaultPort = defaultPort;
    this.defaultRestartPolicy = defaultRestartPolicy;
    this.replicaTypes = List.copyOf(replicaTypes);
  }

  @Override
  public final String apiVersion() {
    return "kubeflow.org/v1";
  }

  @Override
  public final String kind() {
    return kind;
  }

  @Override
  public final String plural() {
    return kind.toLowerCase(java.util.Locale.ROOT) + "s";
  }

  @Override
  public final String replicaSpecsField() {
    return replicaSpecsField;
  }

  @Override
  public final String containerName() {
    return containerName;
  }

  @Override
  public final String portName() {
    return portName;
  }

  @Override
  public final int defaultPort() {
    return defaultPort;
  }

  @Override
  public final String defaultRestartPolicy() {
    return defaultRestartPolicy;
  }

  @Override
  public final List<String> replicaTypes() {
    return replicaTypes;
  }

  /** The webhook's rule for a Master (PyTorchJob, XGBoostJob): at most one. */
  static void requireOneMaster(String path, Map<String, Integer> replicasByType) {
    Integer masters = replicasByType.get("Master");
    if (masters != null && masters != 1) {
      throw InvalidInputException.of(path + ".Master.replicas", "is " + masters
          + "; the operator requires exactly 1", "set it to 1");
    }
  }

  /** True when {@code type} has replicas and every one of them has succeeded. */
  static boolean allSucceeded(ReplicaTopology topology, String type,
      Predicate<ReplicaTopology.Replica> succeeded) {
    return topology.group(type).map(group -> {
      for (int i = 0; i < group.replicas(); i++) {
        if (!succeeded.test(new ReplicaTopology.Replica(type, i))) {
          return false;
        }
      }
      return true;
    }).orElse(false);
  }

  /** The port {@code type}'s replicas declare for the operator, else the kind's default. */
  int declaredPort(ReplicaTopology topology, String type) {
    return topology.group(type).map(ReplicaTopology.Group::port).orElse(defaultPort);
  }

  @Override
  public String toString() {
    return kind;
  }
}

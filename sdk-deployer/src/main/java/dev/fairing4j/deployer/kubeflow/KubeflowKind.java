package dev.fairing4j.deployer.kubeflow;

import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.internal.JobKind;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.NamedPort;
import dev.fairing4j.deployer.job.internal.ReplicaSlot;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A Kubeflow v1 training kind (PyTorchJob, TFJob, XGBoostJob) as one description: what the two share (API
 * version, container and port, the run policy, the replica specs keyed by type, the restart
 * targets check) is written once here, and each deployer gives only its own checks and spec
 * fields.
 *
 * @param kind the kind, e.g. {@code PyTorchJob}
 * @param replicaSpecsField the spec field holding the replica specs, e.g.
 *     {@code pytorchReplicaSpecs}
 * @param containerName the training container's name, which the operator looks for
 * @param namedPort the port the operator expects the container to declare
 * @param slots the replica slots, in manifest order
 * @param policy the run, clean-pod and restart settings
 * @param checks the kind's own checks of the configuration, before the shared ones
 * @param specFields the kind's own spec fields, written between the run policy and the specs;
 *     they may read the rendered pod templates (a PyTorchJob's process count follows its GPUs)
 */
record KubeflowKind(String kind, String replicaSpecsField, String containerName, NamedPort namedPort,
    List<ReplicaSlot> slots, KubeflowPolicy policy, Consumer<JobOptions> checks,
    SpecFields specFields) implements JobKind {

  /** A kind's own spec fields, from the options and the rendered pod templates (slot order). */
  @FunctionalInterface
  interface SpecFields {
    void write(Map<String, Object> spec, JobOptions options, List<Map<String, Object>> templates);
  }

  KubeflowKind {
    slots = List.copyOf(slots);
  }

  /** The kind {@code type} describes (its name, replica-specs field, container and port). */
  static KubeflowKind of(TrainingKind type, List<ReplicaSlot> slots, KubeflowPolicy policy,
      Consumer<JobOptions> checks, SpecFields specFields) {
    return new KubeflowKind(type.kind(), type.replicaSpecsField(), type.containerName(),
        new NamedPort(type.portName(), type.defaultPort()), slots, policy, checks, specFields);
  }

  @Override
  public String apiVersion() {
    return "kubeflow.org/v1";
  }

  @Override
  public Optional<NamedPort> port() {
    return Optional.of(namedPort);
  }

  @Override
  public int reservedNameSuffix() {
    return slots.stream().mapToInt(ReplicaSlot::podSuffixLength).max().orElse(0);
  }

  @Override
  public void validate(JobOptions options) {
    checks.accept(options);
    policy.checkRestartTargets(kind + " " + options.name(), slots);
  }

  @Override
  public Map<String, Object> spec(String jobName, JobOptions options,
      List<Map<String, Object>> templates) {
    Map<String, Object> spec = Json.map();
    spec.put("runPolicy", policy.runPolicy(options));
    specFields.write(spec, options, templates);
    spec.put(replicaSpecsField, KubeflowPolicy.replicaSpecs(slots, templates));
    return spec;
  }
}

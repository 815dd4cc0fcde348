package dev.fairing4j.deployer.kubeflow;

import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.ReplicaSlot;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the two Kubeflow kinds share beyond {@link JobOptions}: the restart policy per replica type,
 * the clean-pod policy and scheduling hints; and how both write {@code runPolicy} and the replica
 * map.
 *
 * @param defaultRestart the restart policy of every replica type without an override
 * @param restartOverrides restart policies for single replica types
 * @param cleanPodPolicy which pods go when the job ends
 * @param scheduling gang-scheduling hints
 */
record KubeflowPolicy(RestartPolicy defaultRestart, Map<ReplicaType, RestartPolicy> restartOverrides,
    CleanPodPolicy cleanPodPolicy, Optional<SchedulingPolicy> scheduling) {

  KubeflowPolicy {
    Objects.requireNonNull(defaultRestart, "restartPolicy");
    restartOverrides = restartOverrides.isEmpty() ? Map.of()
        : Map.copyOf(new EnumMap<>(restartOverrides));
    Objects.requireNonNull(cleanPodPolicy, "cleanPodPolicy");
    Objects.requireNonNull(scheduling, "schedulingPolicy");
  }

  static KubeflowPolicy defaults(RestartPolicy restart) {
    return new KubeflowPolicy(restart, Map.of(), CleanPodPolicy.NONE, Optional.empty());
  }

  RestartPolicy restartPolicy(ReplicaType type) {
    return restartOverrides.getOrDefault(type, defaultRestart);
  }

  KubeflowPolicy withRestart(RestartPolicy policy) {
    return new KubeflowPolicy(Objects.requireNonNull(policy, "restartPolicy"), Map.of(),
        cleanPodPolicy, scheduling);
  }

  KubeflowPolicy withRestart(ReplicaType type, RestartPolicy policy) {
    Map<ReplicaType, RestartPolicy> copy = new EnumMap<>(ReplicaType.class);
    copy.putAll(restartOverrides);
    copy.put(Objects.requireNonNull(type, "replica type"),
        Objects.requireNonNull(policy, "restartPolicy"));
    return new KubeflowPolicy(defaultRestart, copy, cleanPodPolicy, scheduling);
  }

  KubeflowPolicy withCleanPodPolicy(CleanPodPolicy policy) {
    return new KubeflowPolicy(defaultRestart, restartOverrides, policy, scheduling);
  }

  KubeflowPolicy withScheduling(SchedulingPolicy policy) {
    return new KubeflowPolicy(defaultRestart, restartOverrides, cleanPodPolicy,
        Optional.of(Objects.requireNonNull(policy, "schedulingPolicy")));
  }

  /**
   * {@code spec.runPolicy} in the operator's field order. cleanPodPolicy is always written: the
   * operator's default lives only in its memory, and the stored object should say what happens.
   * backoffLimit too, {@link dev.fairing4j.deployer.job.JobDeployer#DEFAULT_BACKOFF_LIMIT} unless
   * set:
   * without one the operator restarts a script that exits non-zero forever.
   */
  Map<String, Object> runPolicy(JobOptions options) {
    Map<String, Object> runPolicy = Json.map();
    runPolicy.put("cleanPodPolicy", cleanPodPolicy.value());
    options.ttlSecondsAfterFinished().ifPresent(v -> runPolicy.put("ttlSecondsAfterFinished", v));
    options.activeDeadlineSeconds().ifPresent(v -> runPolicy.put("activeDeadlineSeconds", v));
    runPolicy.put("backoffLimit",
        options.backoffLimit().orElse(JobDeployer.DEFAULT_BACKOFF_LIMIT));
    scheduling.ifPresent(policy -> {
      Map<String, Object> map = Json.map();
      policy.minAvailable().ifPresent(v -> map.put("minAvailable", v));
      policy.queue().ifPresent(v -> map.put("queue", v));
      policy.priorityClass().ifPresent(v -> map.put("priorityClass", v));
      runPolicy.put("schedulingPolicy", map);
    });
    if (options.suspend()) {
      runPolicy.put("suspend", true);
    }
    return runPolicy;
  }

  /** The replica map: type name to replicas, restartPolicy (both written), template. */
  static Map<String, Object> replicaSpecs(List<ReplicaSlot> slots,
      List<Map<String, Object>> templates) {
    Map<String, Object> specs = Json.map();
    for (int i = 0; i < slots.size(); i++) {
      ReplicaSlot slot = slots.get(i);
      Map<String, Object> spec = Json.map();
      spec.put("replicas", slot.replicas());
      spec.put("restartPolicy", slot.restartPolicy().value());
      spec.put("template", templates.get(i));
      specs.put(slot.type().orElseThrow().specName(), spec);
    }
    return specs;
  }

  /** Checks that every restart override names a type of the job. */
  void checkRestartTargets(String kind, List<ReplicaSlot> slots) {
    for (ReplicaType type : restartOverrides.keySet()) {
      if (slots.stream().noneMatch(slot -> slot.type().equals(Optional.of(type)))) {
        throw dev.fairing4j.core.InvalidInputException.of("restartPolicy(" + type + ", ..)",
            kind + " has no " + type + " replicas",
            "drop the override, or give the job " + type + " replicas");
      }
    }
  }
}

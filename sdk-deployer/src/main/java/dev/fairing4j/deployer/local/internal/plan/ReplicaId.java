package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.util.Locale;

/**
 * One replica instance and its names: the operator's pod name ({@code mnist-worker-1}), the short
 * name logs are prefixed with ({@code worker-1}) and the container it runs. A TrainJob's node
 * {@code i} is named as its JobSet pod's stable part, {@code mnist-node-0-i} (the Job controller
 * adds a random {@code -xxxxx} on a cluster), and its logs are prefixed {@code node-i}, the
 * Kubeflow SDK's step name.
 *
 * @param type the replica type as the manifest spells it ({@code Worker}; {@code Pod} for a Job)
 * @param index the index within its type
 * @param podName the pod name the operator would give it
 * @param shortName lower-case type and index
 * @param container the container name
 */
public record ReplicaId(String type, int index, String podName, String shortName,
    String container) {

  static ReplicaId of(JobPlan plan, JobPlan.Group group, int index) {
    String lower = group.type().toLowerCase(Locale.ROOT);
    String pod = plan.kind() == LocalKind.BATCH ? plan.name() + "-" + index
        : plan.kind() == LocalKind.TRAINJOB ? TrainJobs.podHostname(plan.name(), lower, index)
        : plan.name() + "-" + lower + "-" + index;
    return new ReplicaId(group.type(), index, pod, lower + "-" + index,
        group.pod().container().name());
  }
}

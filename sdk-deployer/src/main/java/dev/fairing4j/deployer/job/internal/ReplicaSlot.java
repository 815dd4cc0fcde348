package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import java.util.Objects;
import java.util.Optional;

/**
 * One pod template a job renders: a replica type (none for a batch Job), how many pods run it and
 * their restart policy.
 *
 * @param type the replica type; empty for a batch Job's single template
 * @param replicas the pod count, at least 1 (types with no pods are not rendered)
 * @param restartPolicy what happens when the container exits
 */
public record ReplicaSlot(Optional<ReplicaType> type, int replicas, RestartPolicy restartPolicy) {
  /** Checks the parts. */
  public ReplicaSlot {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(restartPolicy, "restartPolicy");
    if (replicas < 1) {
      throw new IllegalArgumentException("a rendered slot has at least one replica: " + replicas);
    }
  }

  /**
   * The longest suffix the operator appends to the job name for these pods and Services:
   * {@code -<type>-<last index>}.
   */
  public int podSuffixLength() {
    return type.map(t -> ("-" + t.podName() + "-" + (replicas - 1)).length()).orElse(0);
  }
}

package dev.fairing4j.deployer.kubeflow;

import dev.fairing4j.core.internal.Validators;
import java.util.Objects;
import java.util.Optional;

/**
 * Gang-scheduling hints for the Kubeflow operator's {@code runPolicy.schedulingPolicy}, read by
 * Volcano or the scheduler-plugins coscheduler: the queue, the PriorityClass, and how many pods
 * must be placeable at once. (For Kueue, use {@code kueueQueue(..)} on the deployer instead.)
 *
 * @param queue the scheduler queue
 * @param priorityClass a PriorityClass name
 * @param minAvailable pods that must be schedulable together before any starts
 */
public record SchedulingPolicy(Optional<String> queue, Optional<String> priorityClass,
    Optional<Integer> minAvailable) {

  /** Checks the parts. */
  public SchedulingPolicy {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(priorityClass, "priorityClass");
    Objects.requireNonNull(minAvailable, "minAvailable");
    queue.ifPresent(q -> Validators.requireText("schedulingPolicy.queue", q));
    priorityClass.ifPresent(p -> Validators.dns1123Subdomain("schedulingPolicy.priorityClass",
        p));
    minAvailable.ifPresent(m -> Validators.atLeast("schedulingPolicy.minAvailable", m, 1));
  }

  /** No hints; add them with the {@code with} methods. */
  public static SchedulingPolicy empty() {
    return new SchedulingPolicy(Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** With a scheduler queue. */
  public SchedulingPolicy withQueue(String value) {
    return new SchedulingPolicy(Optional.of(value), priorityClass, minAvailable);
  }

  /** With a PriorityClass. */
  public SchedulingPolicy withPriorityClass(String value) {
    return new SchedulingPolicy(queue, Optional.of(value), minAvailable);
  }

  /** With a gang size (at least 1). */
  public SchedulingPolicy withMinAvailable(int value) {
    return new SchedulingPolicy(queue, priorityClass, Optional.of(value));
  }
}

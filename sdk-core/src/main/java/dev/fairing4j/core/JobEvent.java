package dev.fairing4j.core;

import java.time.Instant;
import java.util.Objects;

/**
 * One event of a job or of one of its pods, as {@code kubectl get events} lists it and the
 * Kubeflow SDK's {@code get_job_events} returns it: when, {@code Normal} or {@code Warning}, why,
 * about which object and what happened. On Kubernetes these are the cluster's own Event objects
 * (the operator's, the scheduler's, the kubelet's); on {@code Clusters.local()} and
 * {@code Clusters.podman()}, those the SDK's imitation of the operator records where the real
 * one would: the pod created, its container started, an exit code, a back-off, a restart, the
 * job's success or failure.
 *
 * @param time when it last happened
 * @param type {@code Normal} or {@code Warning}
 * @param reason a short CamelCase reason, e.g. {@code SuccessfulCreatePod}, {@code BackOff},
 *     {@code PyTorchJobSucceeded}
 * @param object the object it is about, as kubectl names it: {@code pod/mnist-master-0},
 *     {@code pytorchjob/mnist}
 * @param message what happened, in the words of whoever recorded it
 * @param count how often it happened (Kubernetes folds repeats of one event into one)
 */
public record JobEvent(Instant time, String type, String reason, String object, String message,
    int count) {
  /** Checks that every part is there. */
  public JobEvent {
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(object, "object");
    Objects.requireNonNull(message, "message");
  }

  /** Whether it is a {@code Warning}: something went wrong or had to be retried. */
  public boolean isWarning() {
    return "Warning".equals(type);
  }

  /** {@code time type reason object: message}, with {@code (xN)} for a repeated event. */
  @Override
  public String toString() {
    return time + " " + type + " " + reason + " " + object + ": " + message
        + (count > 1 ? " (x" + count + ")" : "");
  }
}

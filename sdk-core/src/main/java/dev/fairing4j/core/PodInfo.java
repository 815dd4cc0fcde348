package dev.fairing4j.core;

import java.util.Objects;
import java.util.Optional;

/**
 * One replica's pod (or local process) as seen now: the instance a user asks logs of, and the
 * place a stuck job's reason shows.
 *
 * @param name the pod name, e.g. {@code mnist-worker-0}
 * @param replicaType the replica type as the job spells it, e.g. {@code "Worker"}
 * @param index the replica index within its type
 * @param phase the pod phase: Pending, Running, Succeeded, Failed or Unknown
 * @param node the node (or host) it runs on, once scheduled
 * @param reason why it is not running, e.g. {@code "Unschedulable"} or {@code "ImagePullBackOff"}
 * @param message the detail behind {@code reason}
 * @param restarts container restarts so far
 * @param exitCode the training container's last exit code, once it has exited
 */
public record PodInfo(String name, String replicaType, int index, String phase,
    Optional<String> node, Optional<String> reason, Optional<String> message, int restarts,
    Optional<Integer> exitCode) {

  /** Checks the required parts. */
  public PodInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(replicaType, "replicaType");
    Objects.requireNonNull(phase, "phase");
    node = node == null ? Optional.empty() : node;
    reason = reason == null ? Optional.empty() : reason;
    message = message == null ? Optional.empty() : message;
    exitCode = exitCode == null ? Optional.empty() : exitCode;
  }

  @Override
  public String toString() {
    return name + " " + phase + node.map(n -> " on " + n).orElse("")
        + reason.map(r -> " (" + r + ")").orElse("");
  }
}

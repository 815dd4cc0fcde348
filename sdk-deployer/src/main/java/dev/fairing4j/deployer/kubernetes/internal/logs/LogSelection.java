package dev.fairing4j.deployer.kubernetes.internal.logs;

import dev.fairing4j.core.PodInfo;
import dev.fairing4j.deployer.kubernetes.internal.jobs.PodDiagnosis;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which lines of which replicas a log request wants.
 *
 * @param tail only the last lines of each replica (then new ones, when following)
 * @param since only lines written at or after this time
 * @param replica one instance ({@code worker-1}, {@code node-0}) or one type ({@code worker},
 *     {@code dataset-initializer}), lower case
 * @param container the container to read instead of the training container (a sidecar, an init
 *     container)
 */
public record LogSelection(Optional<Integer> tail, Optional<Instant> since,
    Optional<String> replica, Optional<String> container) {

  /** Everything. */
  public static final LogSelection ALL = new LogSelection(Optional.empty(), Optional.empty(),
      Optional.empty(), Optional.empty());

  /** Normalises the replica name to lower case. */
  public LogSelection {
    tail = tail == null ? Optional.empty() : tail;
    since = since == null ? Optional.empty() : since;
    replica = replica == null ? Optional.empty()
        : replica.map(r -> r.trim().toLowerCase(Locale.ROOT));
    container = container == null ? Optional.empty() : container.map(String::trim);
  }

  /** With only the last {@code lines} lines. */
  public LogSelection withTail(int lines) {
    return new LogSelection(Optional.of(lines), since, replica, container);
  }

  /** With only the lines since {@code time}. */
  public LogSelection withSince(Instant time) {
    return new LogSelection(tail, Optional.of(time), replica, container);
  }

  /** With one replica. */
  public LogSelection withReplica(String name) {
    return new LogSelection(tail, since, Optional.of(name), container);
  }

  /** With one container. */
  public LogSelection withContainer(String name) {
    return new LogSelection(tail, since, replica, Optional.of(name));
  }

  /**
   * The container to read in {@code pod}: the one asked for, else the kind's training container.
   */
  public String containerOf(Map<String, Object> pod, String kind) {
    return container.orElseGet(() -> PodDiagnosis.trainingContainer(pod, kind));
  }

  /** True when {@code pod} is one of the selected replicas. */
  public boolean matches(PodInfo pod) {
    return matchesReplica(PodDiagnosis.shortName(pod))
        || replica.get().equals(pod.replicaType().toLowerCase(Locale.ROOT));
  }

  /**
   * True when the replica {@code shortName} ({@code worker-1}) is selected: by itself, or by its
   * type (the name without its index).
   */
  public boolean matchesReplica(String shortName) {
    if (replica.isEmpty()) {
      return true;
    }
    String wanted = replica.get();
    return wanted.equals(shortName) || wanted.equals(shortName.replaceAll("-[0-9]+$", ""));
  }
}

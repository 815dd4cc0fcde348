package dev.fairing4j.deployer.kubernetes.internal.logs;

import dev.fairing4j.core.PodInfo;
import dev.fairing4j.deployer.kubernetes.internal.jobs.PodDiagnosis;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * Which lines of which replicas a log request wants.
 *
 * @param tail only the last lines of each replica (then new ones, when following)
 * @param since only lines written at or after this time
 * @param replica one instance ({@code worker-1}, {@code node-0}) or one type ({@code worker},
 *     {@code dataset-initializer}), lower case
 */
public record LogSelection(Optional<Integer> tail, Optional<Instant> since,
    Optional<String> replica) {

  /** Everything. */
  public static final LogSelection ALL =
      new LogSelection(Optional.empty(), Optional.empty(), Optional.empty());

  /** Normalises the replica name to lower case. */
  public LogSelection {
    tail = tail == null ? Optional.empty() : tail;
    since = since == null ? Optional.empty() : since;
    replica = replica == null ? Optional.empty()
        : replica.map(r -> r.trim().toLowerCase(Locale.ROOT));
  }

  /** True when {@code pod} is one of the selected replicas. */
  public boolean matches(PodInfo pod) {
    if (replica.isEmpty()) {
      return true;
    }
    String wanted = replica.get();
    return wanted.equals(PodDiagnosis.shortName(pod))
        || wanted.equals(pod.replicaType().toLowerCase(Locale.ROOT));
  }
}

package dev.fairing4j.core;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One line a replica printed, with the replica it came from ({@code master-0}, {@code worker-1})
 * and, when the source provides one, its timestamp. {@link #toString()} is the prefixed form users
 * see: {@code [master-0] Train Epoch: 1 ...}.
 *
 * @param replica the replica's short name: lower-case type and index
 * @param container the container within the pod, usually the training container
 * @param text the line without its line break
 * @param timestamp when the line was written, if known
 */
public record LogLine(String replica, String container, String text, Optional<Instant> timestamp) {

  /** Checks the required parts. */
  public LogLine {
    Objects.requireNonNull(replica, "replica");
    Objects.requireNonNull(container, "container");
    Objects.requireNonNull(text, "text");
    timestamp = timestamp == null ? Optional.empty() : timestamp;
  }

  @Override
  public String toString() {
    return "[" + replica + "] " + text;
  }
}

package dev.fairing4j.deployer.kubernetes.internal.logs;

import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Lets each line of one container's log through once across reconnects. A reconnect asks for
 * {@code sinceTime} = the last delivered line's time, which the API truncates to the second, so
 * the answer repeats lines already delivered: lines older than the last delivered time are
 * dropped, and lines with exactly that time are dropped when their (timestamp, text) was
 * delivered. Lines without a timestamp cannot be placed and always pass.
 */
public final class LineDeduper {
  private final Optional<Instant> since;
  private final Optional<Instant> until;
  private Instant last;
  private final Set<String> deliveredAtLast = new HashSet<>();

  /** A deduper that also drops every line before {@code since}. */
  public LineDeduper(Optional<Instant> since) {
    this(since, Optional.empty());
  }

  /** A deduper that also drops every line before {@code since} and from {@code until} on. */
  public LineDeduper(Optional<Instant> since, Optional<Instant> until) {
    this.since = since;
    this.until = until;
  }

  /** The {@code sinceTime} for the next request: the last delivered time, else {@code since}. */
  public Optional<Instant> resumeFrom() {
    return last != null ? Optional.of(last) : since;
  }

  /** True once a line with a timestamp was delivered. */
  public boolean resumed() {
    return last != null;
  }

  /** Whether {@code line} is new; if so it counts as delivered from now on. */
  public boolean admit(TimestampedLine line) {
    if (line.timestamp().isEmpty()) {
      return true;
    }
    Instant time = line.timestamp().get();
    if (since.isPresent() && time.isBefore(since.get())
        || until.isPresent() && !time.isBefore(until.get())) {
      return false;
    }
    if (last != null && time.isBefore(last)) {
      return false;
    }
    if (time.equals(last)) {
      return deliveredAtLast.add(line.text());
    }
    last = time;
    deliveredAtLast.clear();
    deliveredAtLast.add(line.text());
    return true;
  }
}

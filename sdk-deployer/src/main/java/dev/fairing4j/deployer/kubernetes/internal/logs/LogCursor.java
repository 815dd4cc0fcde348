package dev.fairing4j.deployer.kubernetes.internal.logs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Remembers how far a container's log has been delivered, so repeated reads neither lose nor
 * repeat lines. A resumed read asks for {@code sinceTime} = the last delivered line's time, which
 * the API truncates to the second, so the answer starts with lines already delivered: lines
 * older than that time are dropped, and of the lines with exactly that time as many as were
 * delivered before. Lines without a timestamp are counted by position.
 */
public final class LogCursor {
  private final Optional<Instant> since;
  private Instant last;
  private int deliveredAtLast;
  private int deliveredUntimed;

  /** A cursor that also drops every line before {@code since}. */
  public LogCursor(Optional<Instant> since) {
    this.since = since;
  }

  /** The {@code sinceTime} for the next read: the last delivered time, else {@code since}. */
  public Optional<Instant> resumeFrom() {
    return last != null ? Optional.of(last) : since;
  }

  /** True once a line with a timestamp was delivered. */
  public boolean resumed() {
    return last != null;
  }

  /** The lines of a read not delivered before, in order; they count as delivered now. */
  public List<TimestampedLine> advance(List<TimestampedLine> read) {
    List<TimestampedLine> fresh = new ArrayList<>();
    Instant startLast = last;
    int deliveredAtStart = deliveredAtLast;
    int seenAtStart = 0;
    int untimed = 0;
    for (TimestampedLine line : read) {
      if (line.timestamp().isEmpty()) {
        if (untimed++ >= deliveredUntimed) {
          deliveredUntimed++;
          fresh.add(line);
        }
        continue;
      }
      Instant time = line.timestamp().get();
      if (since.isPresent() && time.isBefore(since.get())) {
        continue;
      }
      if (startLast != null) {
        if (time.isBefore(startLast)) {
          continue;
        }
        if (time.equals(startLast) && seenAtStart < deliveredAtStart) {
          seenAtStart++;
          continue;
        }
      }
      fresh.add(line);
      if (time.equals(last)) {
        deliveredAtLast++;
      } else {
        last = time;
        deliveredAtLast = 1;
      }
    }
    return fresh;
  }
}

package dev.fairing4j.deployer.local.internal;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * One line of a replica's log file: the time it was read, a space, the text, as
 * {@code kubectl logs --timestamps} prints it. The timestamp lets {@code since(t)} select lines and
 * lets a follower that resumes drop what it already delivered.
 */
final class LogFormat {
  private LogFormat() {}

  /**
   * A parsed line.
   *
   * @param time when it was written
   * @param text the replica's text
   */
  record Entry(Optional<Instant> time, String text) {}

  static String format(Instant time, String text) {
    return time + " " + text + "\n";
  }

  static Entry parse(String line) {
    int space = line.indexOf(' ');
    if (space > 0) {
      try {
        return new Entry(Optional.of(Instant.parse(line.substring(0, space))),
            line.substring(space + 1));
      } catch (DateTimeParseException e) {
        // a line written by something else: keep it whole
      }
    }
    return new Entry(Optional.empty(), line);
  }
}

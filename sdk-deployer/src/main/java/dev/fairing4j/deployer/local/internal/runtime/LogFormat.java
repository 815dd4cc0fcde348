package dev.fairing4j.deployer.local.internal.runtime;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * One line of a replica's log file: the time it was read, a space, the text, as
 * {@code kubectl logs --timestamps} prints it. The timestamp lets {@code since(t)} select lines and
 * lets a follower that resumes drop what it already delivered.
 */
public final class LogFormat {
  private static final String RUN_MARKER = "#fairing4j-run ";

  private LogFormat() {}

  /**
   * A parsed line.
   *
   * @param time when it was written
   * @param text the replica's text
   */
  public record Entry(Optional<Instant> time, String text) {}

  static String format(Instant time, String text) {
    return time + " " + text + "\n";
  }

  /**
   * The line the supervisor writes before a replica's run {@code run} (2 and later): no
   * timestamp, so no line of the replica's own (always stamped) can look like it. Readers skip
   * it; a failure report shows where each run starts.
   */
  public static String runMarker(int run) {
    return RUN_MARKER + run + "\n";
  }

  /** The run a marker line starts; empty for any other line. */
  public static java.util.OptionalInt run(String line) {
    if (line.startsWith(RUN_MARKER)) {
      try {
        return java.util.OptionalInt.of(Integer.parseInt(line.substring(RUN_MARKER.length())
            .trim()));
      } catch (NumberFormatException e) {
        return java.util.OptionalInt.empty();
      }
    }
    return java.util.OptionalInt.empty();
  }


  public static Entry parse(String line) {
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

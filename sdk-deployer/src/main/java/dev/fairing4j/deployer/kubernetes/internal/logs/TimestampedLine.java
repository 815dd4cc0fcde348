package dev.fairing4j.deployer.kubernetes.internal.logs;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One line of a log read with {@code timestamps=true}: the kubelet prefixes each line with its
 * RFC 3339 time and a space ({@code 2024-05-01T12:00:00.123456789Z text}).
 *
 * @param timestamp the time, when the line carried one
 * @param text the line without the prefix
 */
public record TimestampedLine(Optional<Instant> timestamp, String text) {

  /** Splits a log body into lines, reading each line's timestamp prefix. */
  public static List<TimestampedLine> parse(String body) {
    List<TimestampedLine> lines = new ArrayList<>();
    body.lines().forEach(line -> lines.add(parseLine(line)));
    return lines;
  }

  /** Reads one line; a line without a valid prefix keeps its whole text and no time. */
  public static TimestampedLine parseLine(String line) {
    int space = line.indexOf(' ');
    String head = space < 0 ? line : line.substring(0, space);
    if (head.length() >= 20 && head.charAt(4) == '-' && head.endsWith("Z")) {
      try {
        return new TimestampedLine(Optional.of(Instant.parse(head)),
            space < 0 ? "" : line.substring(space + 1));
      } catch (DateTimeParseException e) {
        // not a timestamp after all: keep the line as it is
      }
    }
    return new TimestampedLine(Optional.empty(), line);
  }
}

package dev.fairing4j.deployer.kubernetes.internal.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LogCursorTest {
  private static List<TimestampedLine> read(String... lines) {
    return TimestampedLine.parse(String.join("\n", lines));
  }

  private static List<String> texts(List<TimestampedLine> lines) {
    return lines.stream().map(TimestampedLine::text).toList();
  }

  @Test
  void linesWithTheSameTimestampAreNeitherLostNorRepeated() {
    LogCursor cursor = new LogCursor(Optional.empty());
    assertThat(texts(cursor.advance(read("2024-05-01T12:00:00.5Z a", "2024-05-01T12:00:00.5Z b"))))
        .containsExactly("a", "b");
    assertThat(cursor.resumeFrom()).contains(Instant.parse("2024-05-01T12:00:00.5Z"));

    // The next read starts at the second: a and b again, then a third line of the same instant.
    assertThat(texts(cursor.advance(read("2024-05-01T12:00:00.1Z old",
        "2024-05-01T12:00:00.5Z a", "2024-05-01T12:00:00.5Z b", "2024-05-01T12:00:00.5Z c",
        "2024-05-01T12:00:02Z d")))).containsExactly("c", "d");
    assertThat(texts(cursor.advance(read("2024-05-01T12:00:02Z d")))).isEmpty();
    assertThat(texts(cursor.advance(read("2024-05-01T12:00:02Z d", "2024-05-01T12:00:02Z e"))))
        .containsExactly("e");
  }

  @Test
  void sinceDropsEarlierLinesAndIsTheFirstResumePoint() {
    Instant since = Instant.parse("2024-05-01T12:00:01.5Z");
    LogCursor cursor = new LogCursor(Optional.of(since));
    assertThat(cursor.resumeFrom()).contains(since);
    assertThat(texts(cursor.advance(read("2024-05-01T12:00:01.2Z early",
        "2024-05-01T12:00:01.5Z exact", "2024-05-01T12:00:03Z late"))))
        .containsExactly("exact", "late");
  }

  @Test
  void linesWithoutTimestampsAreCountedByPosition() {
    LogCursor cursor = new LogCursor(Optional.empty());
    assertThat(texts(cursor.advance(read("plain 1", "plain 2")))).containsExactly("plain 1",
        "plain 2");
    assertThat(texts(cursor.advance(read("plain 1", "plain 2", "plain 3"))))
        .containsExactly("plain 3");
    assertThat(cursor.resumed()).isFalse();
  }

  @Test
  void aLineKeepsItsTextWhenThePrefixIsNoTimestamp() {
    assertThat(TimestampedLine.parseLine("2024-13-99T99:00:00Z not a time"))
        .isEqualTo(new TimestampedLine(Optional.empty(), "2024-13-99T99:00:00Z not a time"));
    assertThat(TimestampedLine.parseLine("2024-05-01T12:00:00.123456789Z  indented"))
        .isEqualTo(new TimestampedLine(Optional.of(Instant.parse("2024-05-01T12:00:00.123456789Z")),
            " indented"));
    assertThat(TimestampedLine.parseLine("")).isEqualTo(new TimestampedLine(Optional.empty(), ""));
  }
}

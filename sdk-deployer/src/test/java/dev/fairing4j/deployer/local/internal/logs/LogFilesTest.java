package dev.fairing4j.deployer.local.internal.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.local.internal.runtime.LogFormat;
import dev.fairing4j.deployer.local.internal.runtime.LogPump;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replica log files: timestamped lines written by the pump, read back incrementally. */
class LogFilesTest {
  @TempDir
  Path dir;

  @Test
  void thePumpTimestampsEveryLineAndKeepsAnUnfinishedLastOne() throws Exception {
    Path file = dir.resolve("master-0.log");
    Instant before = Instant.now();
    LogPump.copy(new ByteArrayInputStream("one\r\ntwo\nlast".getBytes(StandardCharsets.UTF_8)),
        file);

    var lines = Files.readAllLines(file).stream().map(LogFormat::parse).toList();
    assertThat(lines).extracting(LogFormat.Entry::text).containsExactly("one", "two", "last");
    assertThat(lines).allSatisfy(l -> assertThat(l.time()).hasValueSatisfying(
        t -> assertThat(t).isAfterOrEqualTo(before.minusMillis(1))));
  }

  @Test
  void theTailHoldsBackALineUntilItsEndIsWritten() throws Exception {
    Path file = dir.resolve("w.log");
    LogTail tail = new LogTail(file);
    assertThat(tail.poll()).isEmpty();

    Files.writeString(file, "a\nb", StandardOpenOption.CREATE);
    assertThat(tail.poll()).containsExactly("a");
    Files.writeString(file, "c\n", StandardOpenOption.APPEND);
    assertThat(tail.poll()).containsExactly("bc");
    Files.writeString(file, "end", StandardOpenOption.APPEND);
    assertThat(tail.rest()).containsExactly("end");
  }
}

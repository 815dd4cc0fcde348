package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConsoleProgressTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final AtomicLong now = new AtomicLong(1);

  private String output() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void plainModePrintsMilestonesAndQuarterlyTransfersWithoutCarriageReturns() {
    ConsoleProgress progress = new ConsoleProgress(out, false, now::get);
    progress.onEvent(new ProgressEvent.StepStarted("build image"));
    for (int i = 0; i <= 100; i++) {
      now.set(1 + i * 10_000_000L); // 10 ms per step
      progress.onEvent(new ProgressEvent.BytesTransferred("push", i * 1024L * 1024, 100L * 1024 * 1024));
    }
    progress.onEvent(new ProgressEvent.StepFinished("build image", Duration.ofMillis(1500)));
    progress.onEvent(new ProgressEvent.PhaseChanged("mnist", JobPhase.CREATED, JobPhase.RUNNING,
        Map.of("running", 2, "pending", 0)));

    assertThat(output()).doesNotContain("\r");
    assertThat(output().lines()).containsExactly(
        "build image ...",
        "push: 0 B / 100.0 MiB (0%)",
        "push: 25.0 MiB / 100.0 MiB (25%, 100.0 MiB/s)",
        "push: 50.0 MiB / 100.0 MiB (50%, 100.0 MiB/s)",
        "push: 75.0 MiB / 100.0 MiB (75%, 100.0 MiB/s)",
        "push: 100.0 MiB / 100.0 MiB (100%, 100.0 MiB/s)",
        "build image done in 1.5 s",
        "mnist: Created -> Running (pending 0, running 2)");
  }

  @Test
  void updatingModeRewritesOneLineAndKeepsMilestones() {
    ConsoleProgress progress = new ConsoleProgress(out, true, now::get);
    progress.onEvent(new ProgressEvent.StepStarted("build image"));
    now.set(1_000_000_001L); // one second later
    progress.onEvent(new ProgressEvent.BytesTransferred("push", 2048, 4096));
    progress.onEvent(new ProgressEvent.StepFinished("build image", Duration.ofMillis(120)));

    String text = output();
    assertThat(text).startsWith(
        "\rbuild image ...\rbuild image: push 2.0 KiB / 4.0 KiB (2.0 KiB/s)\r");
    // The milestone overwrites the longer progress line, padding it out, then ends the line.
    assertThat(text).endsWith(System.lineSeparator());
    assertThat(text.substring(text.lastIndexOf('\r') + 1).stripTrailing())
        .isEqualTo("build image done in 120 ms");
    assertThat(text.chars().filter(c -> c == '\n').count()).isEqualTo(1);
  }

  @Test
  void sizesAreHumanReadable() {
    assertThat(ConsoleProgress.size(512)).isEqualTo("512 B");
    assertThat(ConsoleProgress.size(1536)).isEqualTo("1.5 KiB");
    assertThat(ConsoleProgress.size(3L * 1024 * 1024 * 1024)).isEqualTo("3.0 GiB");
  }

  @Test
  void offShowsNothing() {
    ConsoleProgress.off().onEvent(new ProgressEvent.Note("hidden"));
    assertThat(output()).isEmpty();
  }
}

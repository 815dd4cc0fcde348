package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.internal.KernelBridge;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  void offShowsNothing() {
    ConsoleProgress.off().onEvent(new ProgressEvent.Note("hidden"));
    assertThat(output()).isEmpty();
  }

  private static ProgressEvent.TrainingProgress training(String replica, double percent,
      int etaSeconds, Map<String, Double> metrics) {
    return new ProgressEvent.TrainingProgress("mnist", replica, Optional.of(1), Optional.empty(),
        Optional.of(percent), etaSeconds < 0 ? Optional.empty()
            : Optional.of(Duration.ofSeconds(etaSeconds)), metrics);
  }

  @Test
  void plainModeShowsTrainingAtEachQuarterOfTheSlowestReplica() {
    ConsoleProgress progress = new ConsoleProgress(out, false, now::get);
    progress.onEvent(training("master-0", 0, -1, Map.of("loss", 2.3)));
    progress.onEvent(training("worker-0", 10, -1, Map.of("loss", 2.2)));
    progress.onEvent(training("master-0", 30, 70, Map.of("loss", 1.1)));
    progress.onEvent(training("worker-0", 31, 69, Map.of("loss", 1.0)));
    progress.onEvent(training("master-0", 60, 40, Map.of("loss", 0.6)));

    assertThat(output().lines()).containsExactly(
        "mnist: epoch 1 0% loss=2.3",
        "mnist: epoch 1 30% ETA 1 min 10 s loss=1.1");
  }

  @Test
  void updatingModeShowsTrainingOnTheLine() {
    ConsoleProgress progress = new ConsoleProgress(out, true, now::get);
    progress.onEvent(training("master-0", 45, 12, Map.of("loss", 0.5208, "accuracy", 0.7)));

    assertThat(output()).startsWith("\rmnist: epoch 1 45% ETA 12 s ")
        .contains("loss=0.5208").doesNotContain("\n");
  }

  @Test
  void aLogLinePrintedThroughTheProgressNeverRunsIntoTheUpdatingLine() {
    ConsoleProgress progress = new ConsoleProgress(out, true, now::get);
    progress.onEvent(training("master-0", 45, 2, Map.of("loss", 2.1873)));
    progress.println("[master-0] Train Epoch: 1 [640/60000 (1%)]\tloss: 2.1873");

    // What a terminal shows: "\r" returns to the line's start, so split the screen there.
    String text = output();
    String drawn = "mnist: epoch 1 45% ETA 2 s loss=2.1873";
    assertThat(text).isEqualTo("\r" + drawn + "\r" + " ".repeat(drawn.length()) + "\r"
        + "[master-0] Train Epoch: 1 [640/60000 (1%)]\tloss: 2.1873" + System.lineSeparator()
        + drawn);

    bytes.reset();
    ConsoleProgress plain = new ConsoleProgress(out, false, now::get);
    plain.println("[worker-0] step 1");
    assertThat(output()).isEqualTo("[worker-0] step 1" + System.lineSeparator());
  }

  /** A kernel that keeps what it was asked to show, as a notebook would. */
  private static final class RecordingKernel implements KernelBridge.Kernel {
    final List<String> calls = new ArrayList<>();

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public String display(Object value) {
      calls.add("display " + ((Displayable) value).toText());
      return "id-" + calls.size();
    }

    @Override
    public void update(String id, Object value) {
      calls.add("update " + id + " " + ((Displayable) value).toText());
    }
  }

  @Test
  void notebookModeUpdatesOneDisplayPerRunInPlace() {
    RecordingKernel kernel = new RecordingKernel();
    ConsoleProgress progress = new ConsoleProgress(out, ConsoleProgress.Mode.NOTEBOOK, now::get,
        Optional.of(kernel));
    progress.onEvent(new ProgressEvent.StepStarted("submit PyTorchJob mnist"));
    progress.onEvent(new ProgressEvent.StepFinished("submit PyTorchJob mnist",
        Duration.ofMillis(800)));
    now.set(1_000_000_000L);
    progress.onEvent(training("master-0", 50, 10, Map.of("loss", 0.5)));
    // within a quarter second: thinned out, the next milestone shows it
    progress.onEvent(training("master-0", 60, 8, Map.of("loss", 0.4)));
    progress.onEvent(new ProgressEvent.PhaseChanged("mnist", JobPhase.RUNNING,
        JobPhase.SUCCEEDED, Map.of()));
    progress.onEvent(new ProgressEvent.StepStarted("submit PyTorchJob mnist"));

    assertThat(output()).isEmpty();
    assertThat(kernel.calls).containsExactly(
        "display submit PyTorchJob mnist ...",
        "update id-1 submit PyTorchJob mnist done in 800 ms",
        "update id-1 submit PyTorchJob mnist done in 800 ms\n"
            + "[############------------] mnist: epoch 1 50% ETA 10 s loss=0.5",
        "update id-1 submit PyTorchJob mnist done in 800 ms\n"
            + "mnist: Running -> Succeeded\n"
            + "[########################] mnist: epoch 1 100% loss=0.4",
        "display submit PyTorchJob mnist ...");
  }

  @Test
  void theNotebookViewIsHtmlWithAProgressBar() {
    ConsoleProgress.View view = new ConsoleProgress.View("mnist: Running", "mnist: epoch 1 50%",
        Optional.of(50.0), new String[] {"build <image> done"});

    assertThat(view.toHtml()).contains("<progress value=\"50.0\" max=\"100\"")
        .contains("build &lt;image&gt; done").contains("<b>mnist: Running</b>");
  }

  @Test
  void timesLeftReadWell() {
    assertThat(ConsoleProgress.eta(Duration.ofSeconds(45))).isEqualTo("45 s");
    assertThat(ConsoleProgress.eta(Duration.ofSeconds(200))).isEqualTo("3 min 20 s");
    assertThat(ConsoleProgress.eta(Duration.ofMinutes(125))).isEqualTo("2 h 5 min");
  }
}

package dev.fairing4j.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.MetricParser;
import dev.fairing4j.core.ProgressEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TrainingTrackerTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
  private final TrainingTracker tracker = new TrainingTracker("mnist", MetricParser.defaults(),
      Clock.fixed(T0, ZoneOffset.UTC));

  private Optional<ProgressEvent.TrainingProgress> line(String replica, int second,
      String text) {
    return tracker.accept(new LogLine(replica, "pytorch", text,
        Optional.of(T0.plusSeconds(second))));
  }

  @Test
  void epochPercentAndTimeLeftFromTheProgressLines() {
    assertThat(line("master-0", 0, "Using distributed PyTorch with gloo backend")).isEmpty();
    ProgressEvent.TrainingProgress first = line("master-0", 10,
        "Train Epoch: 1 [0/60000 (0%)]\tloss=2.3").orElseThrow();
    assertThat(first.epoch()).contains(1);
    assertThat(first.percent()).contains(0.0);
    assertThat(first.eta()).isEmpty(); // no pace from one line
    assertThat(first.metrics()).containsExactly(Map.entry("loss", 2.3));

    ProgressEvent.TrainingProgress later = line("master-0", 40,
        "Train Epoch: 1 [15000/60000 (25%)]\tloss=0.9").orElseThrow();
    assertThat(later.percent()).contains(25.0);
    // a quarter of the epoch in 30 s: three quarters left take 90 s
    assertThat(later.eta()).contains(Duration.ofSeconds(90));
    assertThat(later.job()).isEqualTo("mnist");
    assertThat(later.replica()).isEqualTo("master-0");
  }

  @Test
  void withTheNumberOfEpochsPercentAndTimeLeftCoverTheWholeRun() {
    line("master-0", 0, "Epoch 1/4");
    ProgressEvent.TrainingProgress second = line("master-0", 20, "Epoch 2/4").orElseThrow();

    assertThat(second.epochs()).contains(4);
    assertThat(second.percent()).contains(25.0);
    assertThat(second.eta()).contains(Duration.ofSeconds(60));
  }

  @Test
  void metricsWithoutProgressStillReport() {
    ProgressEvent.TrainingProgress event = line("master-0", 5, "accuracy=0.7682").orElseThrow();

    assertThat(event.percent()).isEmpty();
    assertThat(event.metrics()).containsExactly(Map.entry("accuracy", 0.7682));
  }

  @Test
  void aRestartedReplicaStartsItsPaceAgain() {
    line("worker-0", 0, "Train Epoch: 1 [0/100 (0%)]");
    line("worker-0", 10, "Train Epoch: 1 [50/100 (50%)]");
    line("worker-0", 20, "Train Epoch: 1 [0/100 (0%)]");
    ProgressEvent.TrainingProgress event = line("worker-0", 30, "Train Epoch: 1 [25/100 (25%)]")
        .orElseThrow();

    assertThat(event.eta()).contains(Duration.ofSeconds(30));
  }
}

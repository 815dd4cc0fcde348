package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JobMetricsTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

  static LogLine line(String replica, int second, String text) {
    return new LogLine(replica, "pytorch", text, Optional.of(T0.plusSeconds(second)));
  }

  static List<LogLine> seedLog() {
    return List.of(
        line("worker-0", 1, "Using distributed PyTorch with gloo backend, rank 1 of 2"),
        line("master-0", 1, "Using distributed PyTorch with gloo backend, rank 0 of 2"),
        line("master-0", 2, "Train Epoch: 1 [0/2000 (0%)]\tloss=2.3012"),
        line("worker-0", 2, "Train Epoch: 1 [0/2000 (0%)]\tloss=2.2991"),
        line("master-0", 4, "Train Epoch: 1 [1280/2000 (62%)]\tloss=0.9120"),
        line("worker-10", 4, "Train Epoch: 1 [1280/2000 (62%)]\tloss=0.9"),
        line("worker-0", 4, "Train Epoch: 1 [1280/2000 (62%)]\tloss=0.8877"),
        line("master-0", 6, ""),
        line("master-0", 6, "accuracy=0.6820"),
        line("master-0", 6, "{metricName: accuracy, metricValue: 0.682};"
            + "{metricName: loss, metricValue: 0.8561}"));
  }

  @Test
  void valuesFromElsewhereJoinTheirSourceInTimeOrderAndLeaveTheOriginalAlone() {
    JobMetrics fromLogs = JobMetrics.of("mnist", seedLog());

    JobMetrics both = fromLogs.plus("trainer", Map.of("loss", 0.5), T0.plusSeconds(5))
        .plus("trainer", Map.of("loss", 0.7), T0.plusSeconds(3));

    assertThat(both.replicas()).containsExactly("master-0", "worker-0", "worker-10", "trainer");
    assertThat(both.series("trainer", "loss")).extracting(MetricPoint::value)
        .containsExactly(0.7, 0.5);
    assertThat(both.series("master-0", "loss")).isEqualTo(fromLogs.series("master-0", "loss"));
    assertThat(fromLogs.replicas()).doesNotContain("trainer");
    assertThat(fromLogs.plus("trainer", Map.of(), T0)).isSameAs(fromLogs);
  }

  @Test
  void seriesPerReplicaWithTimestampsLeadReplicaFirst() {
    JobMetrics metrics = JobMetrics.of("mnist", seedLog());

    assertThat(metrics.replicas()).containsExactly("master-0", "worker-0", "worker-10");
    assertThat(metrics.names()).containsExactly("epoch", "progress", "loss", "accuracy");
    assertThat(metrics.series("master-0", "loss")).extracting(MetricPoint::value)
        .containsExactly(2.3012, 0.912, 0.8561);
    assertThat(metrics.series("master-0", "loss").get(1).time()).isEqualTo(T0.plusSeconds(4));
    assertThat(metrics.latest("accuracy")).contains(0.682);
    assertThat(metrics.latest("worker-0", "accuracy")).isEmpty();
    assertThat(metrics.series("chief-0", "loss")).isEmpty();
  }

  @Test
  void aSucceededJobsProgressIsDoneWhateverItsLastProgressLineSaid() {
    JobMetrics metrics = JobMetrics.of("mnist", seedLog());
    JobStatus running = new JobStatus("mnist", "PyTorchJob", List.of(JobCondition.isTrue(
        "Running", "PyTorchJobRunning", "running")), Map.of(), Optional.empty(), Optional.empty(),
        List.of());
    JobStatus succeeded = new JobStatus("mnist", "PyTorchJob", List.of(JobCondition.isTrue(
        "Succeeded", "PyTorchJobSucceeded", "done")), Map.of(), Optional.empty(),
        Optional.of(T0.plusSeconds(60)), List.of());

    assertThat(metrics.endedAs(running)).isSameAs(metrics);
    JobMetrics done = metrics.endedAs(succeeded);
    assertThat(done.latest("master-0", "progress")).contains(100.0);
    assertThat(done.latest("worker-10", "progress")).contains(100.0);
    assertThat(done.series("master-0", "progress")).last()
        .extracting(MetricPoint::time).isEqualTo(T0.plusSeconds(60));
    assertThat(done.series("master-0", "loss")).isEqualTo(metrics.series("master-0", "loss"));
  }

  @Test
  void toStringShowsTheLatestValueOfEachMetricPerReplica() {
    JobMetrics metrics = JobMetrics.of("mnist", seedLog());

    assertThat(metrics.toString()).isEqualTo("""
        REPLICA    EPOCH  PROGRESS  loss    accuracy
        master-0   1      62%       0.8561  0.682
        worker-0   1      62%       0.8877  -
        worker-10  1      62%       0.9     -""");
    assertThat(metrics.toHtml()).startsWith("<table><thead><tr><th>REPLICA</th>")
        .contains("<td>0.8561</td>");
    assertThat(metrics.mimeBundle()).containsKeys("text/plain", "text/html");
  }

  @Test
  void noMetricsSaySo() {
    JobMetrics metrics = JobMetrics.of("mnist", List.of(line("master-0", 1, "hello")));

    assertThat(metrics.isEmpty()).isTrue();
    assertThat(metrics.toString()).isEqualTo("no metrics in the logs of mnist yet");
    assertThat(metrics.plot().mimeBundle()).containsOnlyKeys("text/plain");
  }

  @Test
  void aRecorderCollectsWhileLinesStream() {
    MetricsRecorder recorder = MetricsRecorder.of("mnist");
    seedLog().forEach(recorder);

    assertThat(recorder.metrics()).isEqualTo(JobMetrics.of("mnist", seedLog()));
  }

  @Test
  void numbersReadWell() {
    assertThat(JobMetrics.format(1.0)).isEqualTo("1");
    assertThat(JobMetrics.format(0.76820)).isEqualTo("0.7682");
    assertThat(JobMetrics.format(0.00001234)).isEqualTo("1.234e-05");
    assertThat(JobMetrics.format(12.5)).isEqualTo("12.5");
  }
}

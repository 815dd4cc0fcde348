package dev.fairing4j.deployer.local.internal.trainerstatus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fairing4j.deployer.job.internal.Mappers;
import dev.fairing4j.deployer.trainer.internal.TrainJobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kept reports: bounded, thinned evenly, the newest always kept, a torn line skipped. */
class StatusReportsTest {
  @TempDir Path jobDir;

  @Test
  void pastTheBoundEveryOtherOlderReportGoesAndTheNewestStays() throws Exception {
    StatusReports reports = new StatusReports(jobDir);
    int total = StatusReports.MAX + 3;
    for (int i = 0; i < total; i++) {
      reports.append(report(i));
    }

    List<TrainJobStatus.TrainerReport> kept = StatusReports.of(jobDir);
    assertThat(kept.size()).isLessThanOrEqualTo(StatusReports.MAX).isGreaterThan(
        StatusReports.MAX / 2);
    assertThat(kept.get(kept.size() - 1).values()).containsEntry("progress",
        (double) ((total - 1) % 101));
    assertThat(kept.get(kept.size() - 1).time()).isEqualTo(time(total - 1));
    // oldest first, with the whole span: the first kept is among the first two
    assertThat(kept.get(0).time()).isBefore(time(2));
    for (int i = 1; i < kept.size(); i++) {
      assertThat(kept.get(i).time()).isAfterOrEqualTo(kept.get(i - 1).time());
    }
  }

  @Test
  void aLineStillBeingWrittenIsNoReportYet() throws Exception {
    new StatusReports(jobDir).append(report(5));
    Files.writeString(jobDir.resolve(StatusReports.FILE), "{\"progressPerc",
        java.nio.file.StandardOpenOption.APPEND);

    assertThat(StatusReports.of(jobDir)).hasSize(1);
    assertThat(StatusReports.of(jobDir.resolve("gone"))).isEmpty();
  }

  private static ObjectNode report(int i) {
    ObjectNode node = Mappers.JSON.createObjectNode();
    node.put("progressPercentage", i % 101);
    node.put("lastUpdatedTime", time(i).toString());
    return node;
  }

  private static Instant time(int i) {
    return Instant.parse("2026-12-04T00:00:00Z").plusSeconds(5L * i);
  }
}

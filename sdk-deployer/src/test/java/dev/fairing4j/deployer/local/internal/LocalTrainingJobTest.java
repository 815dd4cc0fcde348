package dev.fairing4j.deployer.local.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StatusMapper;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A handle reads a job's record and then whether its supervisor lives. The interleaving below
 * (the supervisor writes its last record and exits between the two) is what the soak benchmark
 * hit about once in 40 quick jobs; no real process can be made to hit it on demand, so the reads
 * are scripted here.
 */
class LocalTrainingJobTest {
  @Test
  void aSupervisorThatExitedAfterItsLastWriteIsReadWithThatWriteNotAsLost() {
    Deque<JobRecord> writes = new ArrayDeque<>(List.of(record("Running", false),
        record("Succeeded", true)));
    JobRecord[] latest = {null};
    LocalTrainingJob.Observed seen = LocalTrainingJob.observe(() -> {
      latest[0] = writes.isEmpty() ? latest[0] : writes.poll();
      return latest[0];
    }, record -> false);  // gone by the time it is asked

    assertThat(seen.record().settled()).isTrue();
    assertThat(StatusMapper.toStatus(seen.record(), seen.supervised()).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
  }

  @Test
  void aSupervisorThatDiedWithoutALastWriteIsStillReportedLost() {
    LocalTrainingJob.Observed seen = LocalTrainingJob.observe(() -> record("Running", false),
        record -> false);
    assertThat(StatusMapper.toStatus(seen.record(), seen.supervised()).phase())
        .isEqualTo(JobPhase.FAILED);
  }

  private static JobRecord record(String phase, boolean settled) {
    String now = "2026-11-27T12:00:00Z";
    List<JobRecord.Condition> conditions = phase.equals("Running")
        ? List.of(new JobRecord.Condition("Running", "True", "PyTorchJobRunning", "", now, now))
        : List.of(new JobRecord.Condition("Running", "False", "PyTorchJobRunning", "", now, now),
            new JobRecord.Condition("Succeeded", "True", "PyTorchJobSucceeded", "", now, now));
    return new JobRecord(JobRecord.VERSION, "PyTorchJob", "quick", "default", now, 999_999,
        now, "bwrap", List.of(), Map.of(), conditions, now, settled ? now : null, settled,
        List.of(), List.of(), true);
  }
}

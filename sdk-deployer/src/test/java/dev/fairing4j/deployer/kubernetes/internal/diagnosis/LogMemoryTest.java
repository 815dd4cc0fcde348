package dev.fairing4j.deployer.kubernetes.internal.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What a failure report shows of a replica whose pod the operator deleted with its log. */
class LogMemoryTest {
  private static final Instant T0 = Instant.parse("2026-11-24T21:53:50.250Z");

  @Test
  void aRunBegunAfterTheFailingOneDoesNotHideItsLastLines() {
    LogMemory.record("uid-restarted", "master-0", T0, "loading data");
    LogMemory.record("uid-restarted", "master-0", T0.plusMillis(400), "cannot train: no data");
    // The kubelet restarted the container 10 s later; the follower saw the new run's first line
    // before the pod's status showed the restart. Its end is in whole seconds.
    LogMemory.record("uid-restarted", "master-0", T0.plusSeconds(10), "loading data");
    LogMemory.runEnded("uid-restarted", "master-0", Instant.parse("2026-11-24T21:53:50Z"));

    assertThat(LogMemory.last("uid-restarted", "master-0"))
        .containsExactly("loading data", "cannot train: no data");
  }

  /**
   * A container restarted within the second its last run ended (seen on the kit, red CI): the
   * kubelet's whole-second end plus a second's grace took the next run's first line for the
   * ended run's. The ended container's own last line cuts exactly.
   */
  @Test
  void aRestartWithinTheSecondIsCutAtTheEndedRunsOwnLastLine() {
    LogMemory.record("uid-fast", "master-0", T0, "loading data");
    LogMemory.record("uid-fast", "master-0", T0.plusMillis(100), "cannot train: no data");
    LogMemory.record("uid-fast", "master-0", T0.plusMillis(600), "loading data");
    LogMemory.runEndedWithLine("uid-fast", "master-0", T0.plusMillis(100));

    assertThat(LogMemory.last("uid-fast", "master-0"))
        .containsExactly("loading data", "cannot train: no data");

    // What the second's grace made of the same lines: the next run's first line taken in.
    LogMemory.record("uid-grace", "master-0", T0, "loading data");
    LogMemory.record("uid-grace", "master-0", T0.plusMillis(100), "cannot train: no data");
    LogMemory.record("uid-grace", "master-0", T0.plusMillis(600), "loading data");
    LogMemory.runEnded("uid-grace", "master-0", Instant.parse("2026-11-24T21:53:50Z"));
    assertThat(LogMemory.last("uid-grace", "master-0")).endsWith("loading data");
  }

  @Test
  void aRestartSeenBeforeTheNextRunPrintedKeepsTheEndedRun() {
    LogMemory.record("uid-early", "master-0", T0, "loading data");
    LogMemory.record("uid-early", "master-0", T0.plusMillis(400), "cannot train: no data");
    LogMemory.runEnded("uid-early", "master-0", Instant.parse("2026-11-24T21:53:50Z"));
    LogMemory.record("uid-early", "master-0", T0.plusSeconds(10), "loading data");
    // A second look at the same end (nothing of that run left) changes nothing.
    LogMemory.runEnded("uid-early", "master-0", Instant.parse("2026-11-24T21:53:50Z"));

    assertThat(LogMemory.last("uid-early", "master-0"))
        .containsExactly("loading data", "cannot train: no data");
  }

  @Test
  void aSingleRunIsShownAsStreamedAndReplicasAndJobsAreKeptApart() {
    LogMemory.record("uid-once", "worker-0", T0, "epoch 1");
    LogMemory.record("uid-once", "worker-0", T0.plusSeconds(1), "Traceback ...");
    LogMemory.record("uid-once", "worker-1", T0, "epoch 1");

    assertThat(LogMemory.last("uid-once", "worker-0")).containsExactly("epoch 1", "Traceback ...");
    assertThat(LogMemory.last("uid-once", "worker-1")).containsExactly("epoch 1");
    assertThat(LogMemory.last("uid-other", "worker-0")).isEmpty();
  }

  @Test
  void theLinesKeptPerRunAreBounded() {
    for (int i = 0; i < LogMemory.LINES + 5; i++) {
      LogMemory.record("uid-long", "master-0", T0.plusMillis(i), "line " + i);
    }
    LogMemory.runEnded("uid-long", "master-0", T0.plusSeconds(5));

    assertThat(LogMemory.last("uid-long", "master-0")).hasSize(LogMemory.LINES)
        .endsWith("line " + (LogMemory.LINES + 4));
  }
}

package dev.fairing4j.deployer.kubernetes.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a failure report shows of a replica whose pod the operator deleted with its log. */
class LogMemoryTest {
  @Test
  void aRunBegunAfterTheFailingOneDoesNotHideItsLastLines() {
    LogMemory.record("uid-restarted", "master-0", "loading data");
    LogMemory.record("uid-restarted", "master-0", "cannot train: no data");
    LogMemory.runEnded("uid-restarted", "master-0");
    // The kubelet restarted the container; the operator then failed the job and deleted the pod.
    LogMemory.record("uid-restarted", "master-0", "loading data");

    assertThat(LogMemory.last("uid-restarted", "master-0"))
        .containsExactly("loading data", "cannot train: no data");
  }

  @Test
  void aSingleRunIsShownAsStreamedAndReplicasAndJobsAreKeptApart() {
    LogMemory.record("uid-once", "worker-0", "epoch 1");
    LogMemory.record("uid-once", "worker-0", "Traceback ...");
    LogMemory.record("uid-once", "worker-1", "epoch 1");

    assertThat(LogMemory.last("uid-once", "worker-0")).containsExactly("epoch 1", "Traceback ...");
    assertThat(LogMemory.last("uid-once", "worker-1")).containsExactly("epoch 1");
    assertThat(LogMemory.last("uid-other", "worker-0")).isEmpty();
  }

  @Test
  void theLinesKeptPerRunAreBounded() {
    for (int i = 0; i < LogMemory.LINES + 5; i++) {
      LogMemory.record("uid-long", "master-0", "line " + i);
    }
    LogMemory.runEnded("uid-long", "master-0");

    assertThat(LogMemory.last("uid-long", "master-0")).hasSize(LogMemory.LINES)
        .endsWith("line " + (LogMemory.LINES + 4));
  }
}

package dev.fairing4j.deployer.local.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Telling a running process from a recycled pid by its start time, as two JVMs see it: each
 * adds the process's start ticks to the boot time it read once, in whole seconds.
 */
class ProcessGroupsTest {
  @Test
  void aStartOneSecondAwayIsTheSameProcessSeenByAJvmThatReadTheBootTimeAfterItFlipped() {
    Instant recorded = Instant.parse("2026-12-03T12:00:00.370Z");

    assertThat(ProcessGroups.sameStart(recorded.plusSeconds(1), recorded)).isTrue();
    assertThat(ProcessGroups.sameStart(recorded.minusSeconds(1), recorded)).isTrue();
  }

  @Test
  void aStartSecondsAwayIsAnotherProcessOnARecycledPid() {
    Instant recorded = Instant.parse("2026-12-03T12:00:00.370Z");

    assertThat(ProcessGroups.sameStart(recorded.plusSeconds(5), recorded)).isFalse();
  }

  @Test
  void thisJvmIsAliveUnderItsOwnStartAndNotUnderAnother() {
    ProcessHandle self = ProcessHandle.current();
    Instant started = self.info().startInstant().orElseThrow();

    assertThat(ProcessGroups.isAlive(self.pid(), Optional.of(started.plusSeconds(1)))).isTrue();
    assertThat(ProcessGroups.isAlive(self.pid(), Optional.of(started.minusSeconds(60))))
        .isFalse();
  }
}

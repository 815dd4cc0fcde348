package dev.fairing4j.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobPhase;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WaitedPhasesTest {
  @Test
  void anEmptySetIsRefusedNamingTheFieldAndTheFix() {
    InvalidInputException e = catchThrowableOfType(() -> WaitedPhases.of(Set.of()),
        InvalidInputException.class);
    assertThat(e.field()).isEqualTo("phases");
    assertThat(e).hasMessageContaining("names no phase, so the wait could never end");
    assertThat(e.fix()).contains("Set.of(JobPhase.RUNNING)", "waitForCompletion(timeout)");
  }

  @Test
  void aNullPhaseIsRefusedNamingTheField() {
    Set<JobPhase> withNull = new HashSet<>(Arrays.asList(JobPhase.RUNNING, null));
    InvalidInputException e = catchThrowableOfType(() -> WaitedPhases.of(withNull),
        InvalidInputException.class);
    assertThat(e.field()).isEqualTo("phases");
    assertThat(e).hasMessageContaining("holds a null");
  }

  @Test
  void theCopyDoesNotFollowLaterChangesOfTheCallersSet() {
    Set<JobPhase> mine = new HashSet<>(Set.of(JobPhase.RUNNING));
    Set<JobPhase> copy = WaitedPhases.of(mine);
    mine.add(JobPhase.FAILED);
    assertThat(copy).containsExactly(JobPhase.RUNNING);
  }
}

package dev.fairing4j.core.internal;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobPhase;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The phases a {@code waitFor(phases, ..)} waits for, checked the same way on every cluster
 * before anything is read.
 */
public final class WaitedPhases {
  private WaitedPhases() {}

  /**
   * A copy of {@code phases}.
   *
   * @throws InvalidInputException naming {@code phases} when it is empty or holds a null
   */
  public static Set<JobPhase> of(Set<JobPhase> phases) {
    Objects.requireNonNull(phases, "phases");
    if (phases.isEmpty()) {
      throw InvalidInputException.of("phases", "names no phase, so the wait could never end",
          "name the phases to wait for, e.g. Set.of(JobPhase.RUNNING), or call"
              + " waitForCompletion(timeout) for the end");
    }
    if (phases.stream().anyMatch(Objects::isNull)) {
      throw InvalidInputException.of("phases", "holds a null", "name only JobPhase values,"
          + " e.g. Set.of(JobPhase.RUNNING, JobPhase.SUCCEEDED)");
    }
    return EnumSet.copyOf(phases);
  }
}

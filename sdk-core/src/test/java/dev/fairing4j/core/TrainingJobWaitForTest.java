package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link TrainingJob#waitFor(Set, Duration, java.util.function.Consumer)} as a job that knows
 * only {@code status()} gets it (a TrainingJob of another library): it polls until a phase asked
 * for, hears each phase once, ends at a success it was not asked for, hands a failure it was not
 * asked for to {@code waitForCompletion} for its report, and times out with the last status.
 */
class TrainingJobWaitForTest {
  private final List<JobPhase> heard = new ArrayList<>();

  @Test
  void itReturnsAtThePhaseAskedForHearingEachPhaseOnce() {
    ScriptedJob job = new ScriptedJob(JobPhase.CREATED, JobPhase.CREATED, JobPhase.RUNNING,
        JobPhase.SUCCEEDED);

    JobStatus running = job.waitFor(Set.of(JobPhase.RUNNING), Duration.ofSeconds(10),
        s -> heard.add(s.phase()));

    assertThat(running.phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(heard).containsExactly(JobPhase.CREATED, JobPhase.RUNNING);
    assertThat(job.completionWaits).isZero();
  }

  @Test
  void aSuccessNotAskedForEndsTheWait() {
    ScriptedJob job = new ScriptedJob(JobPhase.RUNNING, JobPhase.SUCCEEDED);

    assertThat(job.waitFor(Set.of(JobPhase.RESTARTING), Duration.ofSeconds(10)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
  }

  @Test
  void aFailureAskedForIsTheAnswerAndOneNotAskedForIsWaitForCompletionsFailure() {
    assertThat(new ScriptedJob(JobPhase.RUNNING, JobPhase.FAILED).waitFor(
        Set.of(JobPhase.SUCCEEDED, JobPhase.FAILED), Duration.ofSeconds(10)).phase())
        .isEqualTo(JobPhase.FAILED);

    ScriptedJob failedAtOnce = new ScriptedJob(JobPhase.FAILED);
    JobFailedException failed = catchThrowableOfType(() -> failedAtOnce.waitFor(
        Set.of(JobPhase.RUNNING), Duration.ofSeconds(10)), JobFailedException.class);
    assertThat(failed.status().phase()).isEqualTo(JobPhase.FAILED);
    assertThat(failedAtOnce.completionWaits).isEqualTo(1);
  }

  @Test
  void aTimeoutCarriesTheLastStatus() {
    ScriptedJob job = new ScriptedJob(JobPhase.RUNNING);

    JobTimeoutException timeout = catchThrowableOfType(() -> job.waitFor(
        Set.of(JobPhase.SUCCEEDED), Duration.ofMillis(200), s -> heard.add(s.phase())),
        JobTimeoutException.class);

    assertThat(timeout.lastStatus().phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(heard).containsExactly(JobPhase.RUNNING);
    assertThat(job.completionWaits).isZero();
  }

  @Test
  void anEmptySetIsRefusedBeforeAnyRead() {
    ScriptedJob job = new ScriptedJob(JobPhase.RUNNING);

    InvalidInputException e = catchThrowableOfType(() -> job.waitFor(Set.of(),
        Duration.ofSeconds(1)), InvalidInputException.class);

    assertThat(e.field()).isEqualTo("phases");
    assertThat(job.reads).isZero();
  }

  private static JobStatus statusAt(JobPhase phase) {
    List<JobCondition> conditions = phase == JobPhase.PENDING ? List.of()
        : List.of(new JobCondition(phase.conditionType(), true, "Test", "", Optional.empty()));
    return new JobStatus("scripted", "PyTorchJob", conditions, Map.of(), Optional.empty(),
        Optional.empty(), List.of());
  }

  /** A job whose status() walks through the given phases and then stays at the last. */
  private static final class ScriptedJob implements TrainingJob {
    private final Deque<JobPhase> phases;
    int reads;
    int completionWaits;

    ScriptedJob(JobPhase... phases) {
      this.phases = new ArrayDeque<>(List.of(phases));
    }

    @Override
    public String name() {
      return "scripted";
    }

    @Override
    public String namespace() {
      return "default";
    }

    @Override
    public String kind() {
      return "PyTorchJob";
    }

    @Override
    public JobStatus status() {
      reads++;
      return statusAt(phases.size() > 1 ? phases.poll() : phases.peek());
    }

    @Override
    public JobStatus waitForCompletion(Duration timeout) {
      completionWaits++;
      JobStatus end = status();
      if (end.phase() == JobPhase.FAILED) {
        throw new JobFailedException(end, Optional.empty(), Optional.of(3), "exit code 3",
            List.of(), List.of());
      }
      return end;
    }

    @Override
    public JobLogs logs() {
      throw new UnsupportedOperationException("no logs here");
    }

    @Override
    public void delete() {
      throw new UnsupportedOperationException("a wait never deletes");
    }
  }
}

package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link TrainingJob#waitForCompletion(Duration, OnTimeout)} as a job that knows only the plain
 * wait gets it: KEEP is the plain wait, DELETE deletes once the wait timed out and says so, and
 * SUSPEND, which it cannot resume, is refused before any wait.
 */
class TrainingJobOnTimeoutTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(3);

  @Test
  void keepLeavesTheJobAndThrowsThePlainTimeout() {
    SlowJob job = new SlowJob(false);

    assertThatThrownBy(() -> job.waitForCompletion(TIMEOUT, OnTimeout.KEEP))
        .isInstanceOf(JobTimeoutException.class).hasMessageContaining("keeps running");
    assertThat(job.waits).isEqualTo(1);
    assertThat(job.deleted).isFalse();
  }

  @Test
  void deleteDeletesTheJobAfterTheTimeoutAndSaysSo() {
    SlowJob job = new SlowJob(false);

    assertThatThrownBy(() -> job.waitForCompletion(TIMEOUT, OnTimeout.DELETE))
        .isInstanceOfSatisfying(JobTimeoutException.class, e -> {
          assertThat(e.getMessage()).contains("deleted it").doesNotContain("keeps running");
          assertThat(e.lastStatus().name()).isEqualTo("slow");
        });
    assertThat(job.deleted).isTrue();
  }

  @Test
  void aJobThatEndsInTimeIsNeitherDeletedNorTimedOut() {
    SlowJob job = new SlowJob(true);

    assertThat(job.waitForCompletion(TIMEOUT, OnTimeout.DELETE).name()).isEqualTo("slow");
    assertThat(job.deleted).isFalse();
  }

  @Test
  void suspendIsRefusedBeforeAnyWaitNamingTheFieldAndTheFix() {
    SlowJob job = new SlowJob(false);

    assertThatThrownBy(() -> job.waitForCompletion(TIMEOUT, OnTimeout.SUSPEND))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("onTimeout");
          assertThat(e.fix()).contains("OnTimeout.DELETE", "OnTimeout.KEEP");
        });
    assertThat(job.waits).isZero();
    assertThat(job.deleted).isFalse();
  }

  /** A job that either ends at once or never does, and records what was asked of it. */
  private static final class SlowJob implements TrainingJob {
    private final boolean ends;
    int waits;
    boolean deleted;

    SlowJob(boolean ends) {
      this.ends = ends;
    }

    @Override
    public String name() {
      return "slow";
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
      return new JobStatus("slow", "PyTorchJob", List.of(), Map.of(), Optional.empty(),
          Optional.empty(), List.of());
    }

    @Override
    public JobStatus waitForCompletion(Duration timeout) {
      waits++;
      if (ends) {
        return status();
      }
      throw new JobTimeoutException(status(), timeout, "it keeps running");
    }

    @Override
    public JobLogs logs() {
      throw new UnsupportedOperationException("no logs here");
    }

    @Override
    public void delete() {
      deleted = true;
    }
  }
}

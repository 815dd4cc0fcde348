package dev.fairing4j.deployer.local.internal.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.fairing4j.deployer.local.internal.state.JobRecord;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The operator's condition rules, which the local cluster reproduces. */
class ConditionListTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant T1 = Instant.parse("2026-01-01T00:00:01Z");

  @Test
  void successTurnsRunningFalseAndKeepsItListed() {
    ConditionList list = new ConditionList();
    list.set("Created", true, "PyTorchJobCreated", "created", T0);
    list.set("Running", true, "PyTorchJobRunning", "running", T0);
    list.set("Succeeded", true, "PyTorchJobSucceeded", "done", T1);

    assertThat(list.list()).extracting(JobRecord.Condition::type, JobRecord.Condition::status,
        JobRecord.Condition::reason).containsExactly(
            tuple("Created", "True", "PyTorchJobCreated"),
            tuple("Running", "False", "PyTorchJobRunning"),
            tuple("Succeeded", "True", "PyTorchJobSucceeded"));
  }

  @Test
  void restartingAndRunningReplaceEachOther() {
    ConditionList list = new ConditionList();
    list.set("Created", true, "C", "", T0);
    list.set("Running", true, "R", "", T0);
    list.set("Restarting", true, "X", "", T1);
    assertThat(list.list()).extracting(JobRecord.Condition::type)
        .containsExactly("Created", "Restarting");
    list.set("Running", true, "R", "", T1);
    assertThat(list.list()).extracting(JobRecord.Condition::type)
        .containsExactly("Created", "Running");
  }

  @Test
  void nothingChangesOnceFailed() {
    ConditionList list = new ConditionList();
    list.set("Failed", true, "F", "", T0);
    list.set("Succeeded", true, "S", "", T1);
    list.set("Running", true, "R", "", T1);

    assertThat(list.list()).extracting(JobRecord.Condition::type).containsExactly("Failed");
  }

  @Test
  void anUnchangedConditionKeepsItsTimes() {
    ConditionList list = new ConditionList();
    list.set("Running", true, "R", "first", T0);
    list.set("Running", true, "R", "second", T1);

    assertThat(list.list()).singleElement().satisfies(c -> {
      assertThat(c.message()).isEqualTo("first");
      assertThat(c.lastTransitionTime()).isEqualTo(T0.toString());
    });
  }
}

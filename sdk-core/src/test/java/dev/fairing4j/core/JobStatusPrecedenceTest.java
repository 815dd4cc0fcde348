package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The phase rule of CONTRACT.md over every combination of the six condition types plus the
 * {@code Queued} one fairing4j adds for a job Kueue holds, each absent, True or False
 * (3^7 = 2187 cases), in shuffled order.
 */
class JobStatusPrecedenceTest {
  private static final List<String> TYPES =
      List.of("Created", "Running", "Restarting", "Succeeded", "Suspended", "Failed", "Queued");
  // The oracle: CONTRACT.md's ranking, written out independently of JobPhase.PRECEDENCE.
  // Queued is a Suspended job Kueue holds: the more specific of the two.
  private static final Map<String, Integer> RANK = Map.of("Failed", 7, "Succeeded", 6,
      "Queued", 5, "Suspended", 4, "Restarting", 3, "Running", 2, "Created", 1);

  static Stream<Arguments> everyCombination() {
    List<Arguments> cases = new ArrayList<>();
    Random shuffle = new Random(42);
    for (int code = 0; code < 2187; code++) {
      List<JobCondition> conditions = new ArrayList<>();
      int rest = code;
      for (String type : TYPES) {
        int state = rest % 3; // 0 absent, 1 True, 2 False
        rest /= 3;
        if (state == 1) {
          conditions.add(JobCondition.of(type, "True", "PyTorchJob" + type, "", Instant.EPOCH));
        } else if (state == 2) {
          conditions.add(JobCondition.of(type, "False", "", "", null));
        }
      }
      Collections.shuffle(conditions, shuffle);
      cases.add(Arguments.of(describe(conditions), conditions));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{index}: {0}")
  @MethodSource("everyCombination")
  void phaseIsTheStrongestTrueConditionWhateverTheOrder(String description,
      List<JobCondition> conditions) {
    String expected = conditions.stream()
        .filter(JobCondition::status)
        .map(JobCondition::type)
        .max((a, b) -> Integer.compare(RANK.get(a), RANK.get(b)))
        .orElse("Pending");

    JobPhase phase = JobStatus.phaseOf(conditions);

    assertThat(phase.conditionType()).as(description).isEqualTo(expected);
    List<JobCondition> reversed = new ArrayList<>(conditions);
    Collections.reverse(reversed);
    assertThat(JobStatus.phaseOf(reversed)).isEqualTo(phase);
  }

  @Test
  void everyCombinationIsGeneratedOnce() {
    assertThat(everyCombination().map(a -> a.get()[0]).distinct().count()).isEqualTo(2187);
  }

  @Test
  void runningFalseLeftAfterSuccessDoesNotHideSuccess() {
    JobStatus status = status(List.of(
        JobCondition.isTrue("Created", "PyTorchJobCreated", ""),
        JobCondition.isTrue("Succeeded", "PyTorchJobSucceeded", "job succeeded"),
        JobCondition.isFalse("Running", "PyTorchJobRunning", "")));

    assertThat(status.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(status.isTerminal()).isTrue();
    assertThat(status.decidingCondition()).map(JobCondition::reason)
        .contains("PyTorchJobSucceeded");
    assertThat(status.toString()).contains("Succeeded").contains("PyTorchJobSucceeded");
  }

  @Test
  void unknownConditionTypesAndLowerCaseTrueAreHandled() {
    assertThat(JobStatus.phaseOf(List.of(JobCondition.of("Evicted", "True", "", "", null))))
        .isEqualTo(JobPhase.PENDING);
    assertThat(JobStatus.phaseOf(List.of(JobCondition.of("Running", "true", "", "", null))))
        .isEqualTo(JobPhase.RUNNING);
    assertThat(JobStatus.phaseOf(List.of(JobCondition.of("Running", "Unknown", "", "", null))))
        .isEqualTo(JobPhase.PENDING);
  }

  @Test
  void statusIsACopyThatCannotChangeAfterwards() {
    List<JobCondition> conditions = new ArrayList<>(List.of(JobCondition.isTrue("Running", "", "")));
    JobStatus status = status(conditions);
    conditions.add(JobCondition.isTrue("Failed", "", ""));

    assertThat(status.phase()).isEqualTo(JobPhase.RUNNING);
  }

  private static JobStatus status(List<JobCondition> conditions) {
    return new JobStatus("mnist", "PyTorchJob", conditions,
        Map.of("Master", new ReplicaStatus(0, 1, 0)), Optional.empty(), Optional.empty(),
        List.of());
  }

  private static String describe(List<JobCondition> conditions) {
    return conditions.isEmpty() ? "(none)" : conditions.toString();
  }
}

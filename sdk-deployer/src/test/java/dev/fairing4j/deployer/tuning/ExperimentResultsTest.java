package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The trials table: one column per parameter in name order whatever order each trial's map
 * came in, the best trial marked, why a trial failed, and the best among succeeded trials only.
 */
class ExperimentResultsTest {
  private static Map<String, String> ordered(String... pairs) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put(pairs[i], pairs[i + 1]);
    }
    return map;
  }

  @Test
  void eachValueStandsUnderItsOwnParameterAndTheBestIsMarked() {
    ExperimentResults results = new ExperimentResults("search", Objective.minimize("loss"),
        ExperimentPhase.SUCCEEDED, "all 3 trials ended", List.of(
            new Trial(1, "search-1", ordered("optimizer", "sgd", "lr", "0.1"),
                TrialStatus.SUCCEEDED, Optional.of(0.5), Optional.of(Duration.ofSeconds(2)),
                Optional.empty(), Optional.empty()),
            new Trial(2, "search-2", ordered("lr", "0.01", "optimizer", "adam"),
                TrialStatus.SUCCEEDED, Optional.of(0.25), Optional.of(Duration.ofSeconds(3)),
                Optional.empty(), Optional.empty()),
            new Trial(3, "search-3", ordered("lr", "0.001", "optimizer", "sgd"),
                TrialStatus.EARLY_STOPPED, Optional.of(0.1), Optional.of(Duration.ofSeconds(1)),
                Optional.of("stopped early: loss=0.1 after 4 values"), Optional.empty())));

    assertThat(results.toString()).isEqualTo(String.join("\n",
        "TRIAL  STATUS        lr     optimizer  loss  DURATION  MESSAGE",
        "1      Succeeded     0.1    sgd        0.5   2 s",
        "2 *    Succeeded     0.01   adam       0.25  3 s",
        "3      EarlyStopped  0.001  sgd        0.1   1 s       stopped early: loss=0.1 after 4"
            + " values",
        "experiment search: Succeeded (all 3 trials ended); best: trial 2 loss=0.25 with"
            + " lr=0.01, optimizer=adam"));
    assertThat(results.best().orElseThrow().number()).as("succeeded trials only").isEqualTo(2);
  }

  @Test
  void theTrialTheControllerNamesIsTheBestOnceItHasSucceeded() {
    List<Trial> trials = List.of(
        new Trial(1, "tune-x1", Map.of("lr", "0.1"), TrialStatus.SUCCEEDED, Optional.of(0.9),
            Optional.empty(), Optional.empty(), Optional.empty()),
        new Trial(2, "tune-x2", Map.of("lr", "0.2"), TrialStatus.SUCCEEDED, Optional.of(0.8),
            Optional.empty(), Optional.empty(), Optional.empty()),
        new Trial(3, "tune-x3", Map.of("lr", "0.3"), TrialStatus.RUNNING, Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty()));
    Objective accuracy = Objective.maximize("accuracy");

    assertThat(new ExperimentResults("tune", accuracy, ExperimentPhase.SUCCEEDED, "done",
        trials, Optional.of("tune-x2")).best()).map(Trial::number).as("Katib's or the"
            + " Trainer's verdict, by its own reading of the metric").contains(2);
    assertThat(new ExperimentResults("tune", accuracy, ExperimentPhase.RUNNING, "running",
        trials, Optional.of("tune-x3")).best()).map(Trial::number)
        .as("named while still running here: the best value until it has succeeded").contains(1);
    assertThat(new ExperimentResults("tune", accuracy, ExperimentPhase.RUNNING, "running",
        trials, Optional.of("tune-gone")).best()).map(Trial::number).contains(1);
  }
}

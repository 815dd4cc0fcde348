package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.LogLine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What a trial gets and what it gives back: its parameters as arguments or environment, and its
 * objective value read from the metrics its replicas logged, by Katib's default strategies.
 */
class TrialValuesTest {
  @Test
  void aTrialsObjectiveIsTheLeadReplicasBestValueByDefaultOrTheStrategyAsked() {
    // seed 004's script logs Katib's format; the worker logs the same metrics later
    JobMetrics metrics = JobMetrics.of("trial-1", lines(
        "worker-0", katib(0.95, 0.1), "master-0", katib(0.61, 0.9),
        "master-0", katib(0.78, 0.4), "master-0", katib(0.74, 0.5)));

    assertThat(Objective.maximize("accuracy").valueOf(metrics)).contains(0.78);
    assertThat(Objective.minimize("loss").valueOf(metrics)).contains(0.4);
    assertThat(Objective.maximize("accuracy").strategy(MetricStrategy.LATEST).valueOf(metrics))
        .contains(0.74);
    assertThat(Objective.maximize("f1").valueOf(metrics)).as("never logged").isEmpty();
    assertThat(Objective.maximize("accuracy").valueOf(JobMetrics.of("x", List.of()))).isEmpty();
    // name=value lines count too, from whichever replica logged the metric
    assertThat(Objective.minimize("val_loss").valueOf(JobMetrics.of("t", lines(
        "worker-0", "epoch=1 val_loss=0.7", "worker-0", "epoch=2 val_loss=0.3")))).contains(0.3);
  }

  @Test
  void parametersReachTheScriptAsFlagsOrAsEnvironmentVariables() {
    Map<String, String> assignment = new LinkedHashMap<>();
    assignment.put("batch-size", "64");
    assignment.put("lr", "0.0123");

    assertThat(ParameterStyle.ARGS.args(assignment))
        .containsExactly("--batch-size=64", "--lr=0.0123");
    assertThat(ParameterStyle.ARGS.env(assignment)).isEmpty();
    assertThat(ParameterStyle.ENV.env(assignment))
        .containsExactly(Map.entry("BATCH_SIZE", "64"), Map.entry("LR", "0.0123"));
    assertThat(ParameterStyle.ENV.args(assignment)).isEmpty();
    assertThat(ParameterStyle.TRAINER_ENV.env(assignment)).containsExactly(
        Map.entry("KUBEFLOW_TRAINER_OPT_BATCH_SIZE", "64"),
        Map.entry("KUBEFLOW_TRAINER_OPT_LR", "0.0123"));
    assertThat(ParameterStyle.TRAINER_ENV.args(assignment)).isEmpty();
  }

  private static String katib(double accuracy, double loss) {
    return "{metricName: accuracy, metricValue: " + accuracy + "};{metricName: loss, metricValue: "
        + loss + "}";
  }

  private static List<LogLine> lines(String... replicaAndText) {
    List<LogLine> lines = new ArrayList<>();
    Instant time = Instant.parse("2026-11-28T10:00:00Z");
    for (int i = 0; i < replicaAndText.length; i += 2) {
      lines.add(new LogLine(replicaAndText[i], "pytorch", replicaAndText[i + 1],
          Optional.of(time.plusSeconds(i))));
    }
    return lines;
  }
}

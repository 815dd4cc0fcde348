package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.ChartRenderer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An experiment's plots, drawn by the real renderer (XChart): the objective per trial with the
 * best so far, and against each parameter; as PNG, SVG, files and notebook images.
 */
class TrialPlotTest {
  private static Trial trial(int number, String lr, String optimizer, TrialStatus status,
      Double value) {
    return new Trial(number, "search-" + number, Map.of("lr", lr, "optimizer", optimizer),
        status, Optional.ofNullable(value), Optional.of(Duration.ofSeconds(3)), Optional.empty(),
        Optional.empty());
  }

  private static ExperimentResults results(List<Trial> trials) {
    return new ExperimentResults("search", Objective.maximize("accuracy"),
        ExperimentPhase.SUCCEEDED, "all trials ended", trials);
  }

  private static final ExperimentResults RESULTS = results(List.of(
      trial(1, "0.001", "sgd", TrialStatus.SUCCEEDED, 0.42),
      trial(2, "0.03", "adam", TrialStatus.SUCCEEDED, 0.81),
      trial(3, "0.1", "sgd", TrialStatus.FAILED, null),
      trial(4, "0.01", "adam", TrialStatus.SUCCEEDED, 0.77)));

  @Test
  void theObjectivePerTrialAndAgainstEachParameterAreDrawn(@TempDir Path dir) throws Exception {
    TrialPlot perTrial = RESULTS.plot();
    assertThat(perTrial.png()).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    assertThat(perTrial.svg()).contains("search: accuracy per trial");
    assertThat(perTrial.toText()).isEqualTo("plot of accuracy of 3 trials of search");
    List<ChartRenderer.Series> lines = perTrial.chart().panels().get(0).series();
    assertThat(lines).extracting(ChartRenderer.Series::name).containsExactly("trial",
        "best so far");
    assertThat(lines.get(0).x()).as("the failed trial 3 has no point")
        .containsExactly(1, 2, 4);
    assertThat(lines.get(0).y()).containsExactly(0.42, 0.81, 0.77);
    assertThat(lines.get(1).y()).containsExactly(0.42, 0.81, 0.81);

    TrialPlot perParameter = RESULTS.parameterPlot();
    assertThat(perParameter.svg()).contains("search: accuracy against each parameter");
    List<ChartRenderer.Panel> panels = perParameter.chart().panels();
    assertThat(panels).extracting(ChartRenderer.Panel::title).containsExactly(
        "accuracy by lr", "accuracy by optimizer");
    assertThat(panels).extracting(ChartRenderer.Panel::yLabel).as("short: it fits beside the"
        + " axis").containsOnly("accuracy");
    // The values tried themselves, not their ranks: 0.001 .. 0.03 spans 30x, so a log axis.
    ChartRenderer.Series lr = panels.get(0).series().get(0);
    assertThat(lr.x()).containsExactly(0.001, 0.03, 0.01);
    assertThat(lr.y()).containsExactly(0.42, 0.81, 0.77);
    assertThat(panels.get(0).xAxis()).hasValue(new ChartRenderer.Axis("lr (log scale)", true,
        List.of()));
    assertThat(panels.get(1).series().get(0).x()).as("sgd, adam, adam at their names")
        .containsExactly(0, 1, 1);
    assertThat(panels.get(1).xAxis()).hasValue(new ChartRenderer.Axis("optimizer", false,
        List.of("sgd", "adam")));
    assertThat(perParameter.toHtml()).startsWith("<img alt=\"plot of accuracy against lr,"
        + " optimizer over 3 trials of search\" src=\"data:image/png;base64,");
    assertThat(perParameter.mimeBundle()).containsKeys("text/plain", "image/png");

    Path png = perTrial.save(dir.resolve("plots/trials.png"));
    Path svg = perParameter.save(dir.resolve("parameters.svg"));
    assertThat(Files.readAllBytes(png)).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    assertThat(Files.readString(svg)).startsWith("<?xml").contains("<svg");
    assertThatThrownBy(() -> perTrial.save(dir.resolve("trials.jpg")))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("neither .png nor .svg");
  }

  @Test
  void beforeAnyTrialHasTheMetricThePlotSaysWhy() {
    ExperimentResults none = results(List.of(trial(1, "0.01", "sgd", TrialStatus.RUNNING,
        null)));
    assertThatThrownBy(none::plot).isInstanceOf(FairingException.class)
        .hasMessageContaining("no trial has accuracy yet");
    assertThatThrownBy(none::parameterPlot).hasMessageContaining("plot once a trial has"
        + " succeeded");
  }
}

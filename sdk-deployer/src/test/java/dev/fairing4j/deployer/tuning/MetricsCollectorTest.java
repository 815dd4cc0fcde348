package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics collector as Katib's: its default filters read both forms Katib's trial examples
 * print, every match of every line that names the metric counts (the training loss of Katib's
 * own MNIST script too), filters are checked as Go compiles them, every kind renders as Katib's
 * webhook takes it, and the dry run says when the training code prints the objective in a form
 * the filters do not read.
 */
class MetricsCollectorTest {
  @TempDir Path state;

  @Test
  void theDefaultFiltersReadBothFormsOfKatibsExamplesAndEveryMatch() {
    MetricsCollector collector = MetricsCollector.stdOut();
    List<String> lines = List.of(
        "2026-12-02T10:00:00Z INFO     Train Epoch: 1 [0/60000 (0%)]\tloss=2.3011",
        "2026-12-02T10:00:01Z INFO     Train Epoch: 1 [640/60000 (1%)]\tloss=1.2044",
        "2026-12-02T10:00:09Z INFO     {metricName: accuracy, metricValue: 0.7280};"
            + "{metricName: loss, metricValue: 0.5183}",
        "Test set: Average loss: 0.4123, Accuracy: 9800/10000 (98%)",
        "test loss=0.4", "no value: loss=", "lr=0.01 momentum=0.5", "val_loss=1e-3");
    assertThat(collector.values("loss", lines)).as("as Katib's text collector reads them")
        .containsExactly(2.3011, 1.2044, 0.5183, 0.4);
    assertThat(collector.values("accuracy", lines)).containsExactly(0.7280);
    assertThat(collector.values("val_loss", lines)).containsExactly(0.001);
    assertThat(collector.values("momentum", lines)).containsExactly(0.5);
  }

  @Test
  void filtersAreCheckedAsGoCompilesThem() {
    assertThatThrownBy(() -> MetricsCollector.stdOut().filters("(?<=loss)(x)=(\\d+)"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("metricsFormat"))
        .hasMessageContaining("is not a regular expression Go (and so Katib) compiles");
    assertThatThrownBy(() -> MetricsCollector.stdOut().filters("loss=([0-9.]+)"))
        .hasMessageContaining("has no two groups");
    MetricsCollector colon = MetricsCollector.stdOut().filters("(\\w+): ([0-9.]+)");
    assertThat(colon.values("loss", List.of("Average loss: 0.4123, Accuracy: 98")))
        .containsExactly(0.4123);
    assertThatThrownBy(() -> MetricsCollector.tensorFlowEvent("/logs").filters("(a)(b)"))
        .hasMessageContaining("takes no filters");
    assertThatThrownBy(() -> MetricsCollector.file("katib/mnist.log"))
        .hasMessageContaining("is not an absolute path");
    assertThatThrownBy(() -> MetricsCollector.stdOut().json())
        .hasMessageContaining("JSON is a format of the File collector");
  }

  @Test
  void everyKindRendersAsKatibsWebhookTakesIt() {
    assertThat(MetricsCollector.file("/katib/mnist.log").render()).isEqualTo(Map.of(
        "source", Map.of("fileSystemPath", Map.of("path", "/katib/mnist.log", "kind", "File",
            "format", "TEXT"), "filter", Map.of("metricsFormat",
            MetricsCollector.defaultFilters())), "collector", Map.of("kind", "File")));
    assertThat(MetricsCollector.file("/katib/metrics.json").json().render()).isEqualTo(Map.of(
        "source", Map.of("fileSystemPath", Map.of("path", "/katib/metrics.json", "kind", "File",
            "format", "JSON")), "collector", Map.of("kind", "File")));
    assertThat(MetricsCollector.tensorFlowEvent("/logs/tb").render()).isEqualTo(Map.of(
        "source", Map.of("fileSystemPath", Map.of("path", "/logs/tb", "kind", "Directory")),
        "collector", Map.of("kind", "TensorFlowEvent")));
    assertThat(MetricsCollector.prometheus(8000, "/metrics").render()).isEqualTo(Map.of(
        "source", Map.of("httpGet", Map.of("port", 8000, "path", "/metrics")),
        "collector", Map.of("kind", "PrometheusMetric")));
    assertThat(MetricsCollector.custom("registry.example.com/collector:1", "-m", "accuracy")
        .render()).isEqualTo(Map.of("collector", Map.of("kind", "Custom", "customCollector",
            Map.of("name", "custom-metrics-collector", "image",
                "registry.example.com/collector:1", "args", List.of("-m", "accuracy")))));
  }

  private Pipeline pipeline(String script) {
    return Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(() -> BuildContext.empty().withFile("/app/train.py",
            ContextFile.ofText(script)).withCommand(List.of("python", "/app/train.py")))
        .deployer(Deployers.pyTorchJob("mnist").workers(1).on(Clusters.local().stateDir(state)));
  }

  private Experiment experiment(String script) {
    return Experiment.of("tune", pipeline(script)).parameter("lr", Search.uniform(0.01, 0.1))
        .objective(Objective.maximize("accuracy")).maxTrials(2);
  }

  @Test
  void theDryRunSaysWhenTheScriptPrintsTheObjectiveInAFormTheFiltersDoNotRead() {
    String colon = "acc = 0.9\nprint(f\"test accuracy: {acc:.4f}\")\n";
    String dryRun = experiment(colon).dryRun();
    assertThat(dryRun).contains("# WARNING: the metrics collector (StdOut(default filters))"
        + " cannot read accuracy as the training code prints it",
        "#   /app/train.py:2 prints 'test accuracy: 0.5'",
        "fix: print accuracy=<value>");
    String suggested = MetricForms.suggestedFilter("accuracy", "test accuracy: 0.5");
    assertThat(MetricsCollector.stdOut().filters(suggested).values("accuracy",
        List.of("test accuracy: 0.9132"))).as(suggested).containsExactly(0.9132);
    assertThat(experiment(colon).metricsCollector(MetricsCollector.stdOut()
        .filters(suggested)).dryRun()).doesNotContain("WARNING");

    assertThat(experiment("print('accuracy=%.4f' % 0.9)\n").dryRun())
        .doesNotContain("WARNING", "NOTE");
    assertThat(experiment("logging.info('{{metricName: accuracy, metricValue: {:.4f}}}'"
        + ".format(acc))\n").dryRun()).doesNotContain("WARNING", "NOTE");
    assertThat(experiment("print('done')\n").dryRun())
        .contains("\n# NOTE: no string in the training code names accuracy");
  }

  @Test
  void aCollectorOnlyKatibRunsIsRefusedWhereTheTrialsRunFromThisJvm() {
    assertThatThrownBy(() -> experiment("print('accuracy=1')").metricsCollector(
        MetricsCollector.tensorFlowEvent("/logs")).backend(TuningBackend.CLIENT).dryRun())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("metricsCollector"))
        .hasMessageContaining("a TensorFlowEvent collector is Katib's to run")
        .hasMessageContaining(".backend(TuningBackend.KATIB)");
  }

  @Test
  void theKatibExperimentCarriesTheCollector() {
    String yaml = Experiment.of("tune", Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Fixtures::context).builder(TuningFixtures.dryRunBuilder(
            java.util.Optional.empty()))
        .deployer(Deployers.pyTorchJob("mnist").workers(1)
            .on(new Fixtures.CapturingCluster())))
        .parameter("lr", Search.uniform(0.01, 0.1)).objective(Objective.minimize("loss"))
        .metricsCollector(MetricsCollector.file("/katib/mnist.log"))
        .backend(TuningBackend.KATIB).dryRun();
    assertThat(Fixtures.<Object>at(Fixtures.trainingObject(yaml), "spec",
        "metricsCollectorSpec")).isEqualTo(MetricsCollector.file("/katib/mnist.log").render());
  }
}

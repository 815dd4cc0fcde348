package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sdk-examples/jshell/mnist.jsh} run snippet by snippet through the {@code jdk.jshell} API,
 * as {@code scripts/jshell.sh} runs it: the FashionMNIST job succeeds on the local cluster and the
 * model lands on its claim. The one change to the script keeps the job's state and volumes in
 * this test's directories instead of the user's.
 */
class JShellScriptIT {
  private static final Path SCRIPT = Path.of("jshell/mnist.jsh");

  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void requireRealParts() {
    Tools.localTraining();
  }

  @Test
  void theMnistScriptTrainsEndToEndOnTheLocalCluster() throws Exception {
    String source = LocalClusterRedirect.apply(Files.readString(SCRIPT), state, volumes);

    try (JShellSession jshell = new JShellSession()) {
      jshell.runScript(source);

      assertThat(jshell.run("job.status().phase() == JobPhase.SUCCEEDED")).isEqualTo("true");
      assertThat(jshell.run("job.logs().replica(\"master-0\").snapshot().stream()"
          + ".anyMatch(l -> l.toString().startsWith(\"[master-0] accuracy=\"))"))
          .isEqualTo("true");
      assertThat(jshell.skipped()).isEmpty();
      assertThat(jshell.output()).contains("[worker-0] Using distributed PyTorch with gloo backend,"
          + " rank 1 of 2").containsPattern("fashion-mnist-jshell\\s+PyTorchJob\\s+Succeeded")
          .containsPattern("master-0\\s+1\\s+\\d+%\\s+\\d\\.\\d+\\s+0\\.\\d+");
    }
    assertThat(volumes.resolve("traindb-models-claim").resolve("mnist_cnn.pt")).isRegularFile();
    assertThat(volumes.resolve("traindb-models-claim").resolve("fashion-mnist-jshell-metrics.png"))
        .isRegularFile();
  }

  @Test
  void theServeScriptServesItsPlainPythonModelAndLeavesTheEndpointToExplore() throws Exception {
    String source = LocalClusterRedirect.apply(Files.readString(Path.of("jshell/serve.jsh")),
        state, volumes);

    try (JShellSession jshell = new JShellSession()) {
      jshell.runScript(source);

      assertThat(jshell.skipped()).isEmpty();
      assertThat(jshell.output()).containsPattern("Deployment default/celsius\\s+Ready\\s+1/1")
          .contains("predictions: [32.0, 212.0, -40.0]", "raw: {\"predictions\": [98.6");
      assertThat(jshell.run("endpoint.predict(List.of(10)).get(0)")).isEqualTo("50.0");
      jshell.run("endpoint.delete()");
      assertThat(jshell.run("TrainingClient.connect(Clusters.local().stateDir(Path.of(\""
          + state + "\"))).endpoints().endpoints().size()")).isEqualTo("0");
    }
  }

  @Test
  void theTuneScriptRunsSixTrialsAndNamesTheBestOfThem() throws Exception {
    String source = LocalClusterRedirect.apply(Files.readString(Path.of("jshell/tune.jsh")),
        state, volumes);

    try (JShellSession jshell = new JShellSession()) {
      jshell.runScript(source);

      assertThat(jshell.skipped()).isEmpty();
      assertThat(jshell.output()).containsPattern("TRIAL\\s+STATUS\\s+lr\\s+optimizer\\s+accuracy")
          .contains("experiment tune: Succeeded (all 6 trials ended, 6 succeeded, 0 failed);"
              + " best: trial ");
      assertThat(jshell.run("results.trials().size()")).isEqualTo("6");
      // The best is the best of the six by the script's own formula.
      assertThat(jshell.run("results.best().get().objective().get() == results.trials().stream()"
          + ".mapToDouble(t -> t.objective().get()).max().getAsDouble()")).isEqualTo("true");
      assertThat(jshell.run("search.trialJob(1).get().logs().snapshot().stream()"
          + ".anyMatch(l -> l.text().startsWith(\"INFO:root:training with lr \"))"))
          .isEqualTo("true");
      jshell.run("search.delete()");
      assertThat(jshell.run("Clusters.local().stateDir(Path.of(\"" + state
          + "\")).listAll().size()")).isEqualTo("0");
    }
  }
}

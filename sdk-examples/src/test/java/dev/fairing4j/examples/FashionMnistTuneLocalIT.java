package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.tuning.Experiment;
import dev.fairing4j.deployer.tuning.ExperimentPhase;
import dev.fairing4j.deployer.tuning.ExperimentResults;
import dev.fairing4j.deployer.tuning.ExperimentRun;
import dev.fairing4j.deployer.tuning.Trial;
import dev.fairing4j.deployer.tuning.TrialStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 004 on the local cluster: a real search over the FashionMNIST script's learning rate and
 * momentum, 6 trials 2 at a time, random with a fixed seed, on a small subset. Each trial's
 * objective is the accuracy its own logs printed with the parameters it was given, the best trial
 * is at least as good as the median one, and the same seed proposes the same trials.
 */
@Timeout(900)
class FashionMnistTuneLocalIT {
  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void requireRealParts() {
    Tools.localTraining();
  }

  @Test
  void sixTrialsTwoAtATimeFindABestAtLeastAsGoodAsTheMedianAndTheSeedFixesTheTrials() {
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);
    FashionMnist training = new FashionMnist("fmnist", 1, 1500, 500, 0);
    Experiment experiment = training.experiment("fmnist-tune", cluster).maxTrials(6)
        .parallel(2);

    ExperimentResults results;
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofMinutes(12));
    }
    System.out.println("FashionMnistTuneLocalIT:\n" + results);

    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(results.trials()).hasSize(6).allSatisfy(t -> assertThat(t.status())
        .isEqualTo(TrialStatus.SUCCEEDED));
    assertThat(results.trials()).extracting(Trial::parameters)
        .isEqualTo(training.experiment("again", cluster).maxTrials(6).plan());
    for (Trial trial : results.trials()) {
      List<String> lines = trial.job().orElseThrow().logs().snapshot().stream()
          .map(LogLine::text).toList();
      double printed = lines.stream().filter(l -> l.startsWith("accuracy="))
          .mapToDouble(l -> Double.parseDouble(l.substring("accuracy=".length())))
          .max().orElseThrow();
      assertThat(trial.objective()).contains(printed);
    }
    List<Double> values = results.trials().stream().map(t -> t.objective().orElseThrow())
        .sorted().toList();
    double median = (values.get(2) + values.get(3)) / 2;
    Trial best = results.best().orElseThrow();
    assertThat(best.objective().orElseThrow()).isGreaterThanOrEqualTo(median)
        .isEqualTo(values.get(5));
    assertThat(values.get(5)).as("the search found a trial better than guessing")
        .isGreaterThan(0.2);

    // The script received exactly the recorded values: the best trial run again by hand, as an
    // ordinary job with those arguments, prints the same accuracy (the script seeds torch).
    TrainingJob byHand = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(FashionMnist.script())
        .deployer(Deployers.pyTorchJob("by-hand").workers(0).args("--epochs=1",
            "--samples=1500", "--test-samples=500", "--model-dir=/tmp/model",
            "--lr=" + best.parameters().get("lr"),
            "--momentum=" + best.parameters().get("momentum")).on(cluster))
        .run();
    assertThat(byHand.waitForCompletion(Duration.ofMinutes(3)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    assertThat(byHand.metrics().latest("accuracy")).isEqualTo(best.objective());
    cluster.listAll().forEach(TrainingJob::delete);
  }
}

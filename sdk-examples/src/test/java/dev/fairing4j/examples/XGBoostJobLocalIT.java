package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.tuning.Algorithm;
import dev.fairing4j.deployer.tuning.Experiment;
import dev.fairing4j.deployer.tuning.ExperimentPhase;
import dev.fairing4j.deployer.tuning.ExperimentResults;
import dev.fairing4j.deployer.tuning.ExperimentRun;
import dev.fairing4j.deployer.tuning.Objective;
import dev.fairing4j.deployer.tuning.Search;
import dev.fairing4j.deployer.tuning.Trial;
import dev.fairing4j.deployer.tuning.TrialStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * A real distributed XGBoost training as an XGBoostJob on the local cluster, with Debian's
 * {@code python3-xgboost}: a script written as upstream's xgboost-dist example is (rank 0 starts
 * XGBoost's tracker on {@code MASTER_ADDR:MASTER_PORT}, every rank joins with its {@code RANK},
 * logging to stderr) trains on a different shard per rank, and the collective makes one model,
 * the same on every rank. A script that hard-codes a world larger than the job's never forms it,
 * and the job fails at its deadline instead of reporting success. A search over its depth and
 * learning rate takes each trial's objective from the Master, as Katib does.
 */
@Timeout(420)
class XGBoostJobLocalIT {
  private static final Pattern RESULT = Pattern.compile(
      "rank=(\\d) world=(\\d) accuracy=([0-9.]+) model=([0-9a-f]{16})");

  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
    try {
      Process p = new ProcessBuilder("/usr/bin/python3", "-c", "import xgboost")
          .redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (p.waitFor() != 0) {
        throw new AssertionFailedError("/usr/bin/python3 cannot 'import xgboost'; install it:"
            + " apt-get install python3-xgboost");
      }
    } catch (IOException | InterruptedException e) {
      throw new AssertionFailedError("cannot run /usr/bin/python3: " + e.getMessage(), e);
    }
  }

  @Test
  void aMasterAndTwoWorkersTrainOneModelTogether() {
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.source("train.py", script()))
        .deployer(Deployers.xgboostJob("xgb").workers(2)
            .on(Clusters.local().stateDir(state).volumesDir(volumes)))
        .run();
    try {
      JobStatus status = job.waitForCompletion(Duration.ofSeconds(120));
      List<String> lines = job.logs().snapshot().stream()
          .map(l -> "[" + l.replica() + "] " + l.text()).toList();
      assertThat(status.phase()).as("%s", lines).isEqualTo(JobPhase.SUCCEEDED);
      assertThat(lines).anyMatch(l -> l.startsWith("[master-0] ")
          && l.contains(" INFO xgboost-dist: rank 0 of 3, tracker at 127.0.0.1:"));
      assertThat(lines).anyMatch(l -> l.startsWith("[worker-1] ")
          && l.contains(" INFO xgboost-dist: rank 2 of 3, tracker at 127.0.0.1:"));
      List<Matcher> results = lines.stream().map(RESULT::matcher).filter(Matcher::find)
          .toList();
      assertThat(results).extracting(m -> m.group(1)).containsExactlyInAnyOrder("0", "1", "2");
      assertThat(results).extracting(m -> m.group(2)).containsOnly("3");
      Set<String> models = results.stream().map(m -> m.group(4)).collect(Collectors.toSet());
      assertThat(models).as("one model, reduced over all ranks: %s", lines).hasSize(1);
      assertThat(results).allSatisfy(m -> assertThat(Double.parseDouble(m.group(3)))
          .isGreaterThan(0.9));
    } finally {
      job.delete();
    }
  }

  @Test
  void aHardCodedWorldLargerThanTheJobNeverFormsAndTheJobFails() {
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.source("train.py", script()).args("--world-size", "3"))
        .deployer(Deployers.xgboostJob("xgb-wrong").workers(1).activeDeadlineSeconds(20)
            .on(Clusters.local().stateDir(state).volumesDir(volumes)))
        .run();
    try {
      assertThatThrownBy(() -> job.waitForCompletion(Duration.ofSeconds(90)))
          .hasMessageContaining("XGBoostJob xgb-wrong has failed because it was active longer"
              + " than specified deadline");
      assertThat(job.status().phase()).isEqualTo(JobPhase.FAILED);
      List<String> lines = job.logs().snapshot().stream()
          .map(l -> "[" + l.replica() + "] " + l.text()).toList();
      assertThat(lines).anyMatch(l -> l.contains("rank 0 of 3"))
          .noneMatch(l -> RESULT.matcher(l).find());
    } finally {
      job.delete();
    }
  }

  @Test
  void aSearchOverDepthAndLearningRateTunesTheXgboostJobOnTheMastersAccuracy() {
    // Every rank prints an accuracy on its own shard; the trial's objective is the Master's, as
    // Katib reads its primary pod (job-role=master) only.
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);
    Experiment experiment = Experiment.of("xgb-tune", Fairing.pipeline()
            .progress(ProgressListener.NONE)
            .preprocessor(Preprocessors.source("train.py", script()).args("--rounds", "5"))
            .deployer(Deployers.xgboostJob("xgb-trial").workers(1).on(cluster)))
        .parameter("max-depth", Search.intRange(1, 4, 3))
        .parameter("eta", Search.uniform(0.05, 0.5))
        .objective(Objective.maximize("accuracy"))
        .algorithm(Algorithm.random(7)).maxTrials(2).parallel(1);

    ExperimentResults results;
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofMinutes(3));
    }
    System.out.println("XGBoostJobLocalIT:\n" + results);

    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(results.trials()).hasSize(2).allSatisfy(t -> assertThat(t.status())
        .isEqualTo(TrialStatus.SUCCEEDED));
    for (Trial trial : results.trials()) {
      List<String> lines = trial.job().orElseThrow().logs().snapshot().stream()
          .map(l -> "[" + l.replica() + "] " + l.text()).toList();
      assertThat(lines).anyMatch(l -> l.contains("rank 0 of 2"));
      Matcher master = lines.stream().filter(l -> l.startsWith("[master-0] "))
          .map(RESULT::matcher).filter(Matcher::find).findFirst().orElseThrow();
      assertThat(trial.objective()).as("%s", lines)
          .contains(Double.parseDouble(master.group(3)));
    }
    double best = results.trials().stream().mapToDouble(t -> t.objective().orElseThrow())
        .max().orElseThrow();
    assertThat(results.best().orElseThrow().objective()).contains(best);
    cluster.listAll().forEach(TrainingJob::delete);
  }

  @Test
  void aDryRunRendersTheXgboostJobTheOperatorExpects() {
    String yaml = Fairing.pipeline()
        .preprocessor(Preprocessors.source("train.py", script()))
        .builder(Builders.jib("python:3.11-slim").pushTo("registry.example.com/team/xgb"))
        .deployer(Deployers.xgboostJob("xgb").workers(2))
        .dryRun();

    assertThat(yaml).contains("kind: XGBoostJob", "xgbReplicaSpecs:", "Master:", "Worker:",
        "name: xgboost", "name: xgboostjob-port", "containerPort: 9999", "replicas: 2",
        "restartPolicy: OnFailure");
  }

  static String script() {
    try (InputStream in = XGBoostJobLocalIT.class.getResourceAsStream("/xgboost/train.py")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AssertionFailedError("cannot read xgboost/train.py", e);
    }
  }
}

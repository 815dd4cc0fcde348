package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobVariant;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.local.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Experiments run client-side on the local cluster, each trial a real job running a real Python
 * script that prints its score as Katib's examples do ({@code score=0.91}) from the parameters it
 * parsed with argparse or read from its environment: every trial's objective is the one its
 * parameters give, the best is the true best, no more trials run at once than asked, and the
 * goal, the failed-trial budget and a script that prints no metric end it as Katib would.
 */
@Timeout(300)
class ExperimentLocalIT {
  // The score peaks at x=0.3 and is 0.1 higher for the "b" variant.
  private static final String ARGS_SCRIPT = """
      import argparse, logging, sys, time
      logging.basicConfig(stream=sys.stderr, level=logging.INFO)
      parser = argparse.ArgumentParser()
      parser.add_argument("--x", type=float, required=True)
      parser.add_argument("--variant", choices=["a", "b"], required=True)
      parser.add_argument("--fail-above", type=float, default=2.0)
      args = parser.parse_args()
      logging.info("training with x=%s variant=%s", args.x, args.variant)
      time.sleep(1.5)
      if args.x > args.fail_above:
          raise ValueError(f"x={args.x} diverged")
      for epoch in range(3):
          print(f"epoch={epoch} score={(1 - (args.x - 0.3) ** 2) * (epoch + 1) / 3 \
      + (0.1 if args.variant == 'b' else 0):.6f}", flush=True)
      """;

  @TempDir Path state;
  @TempDir Path volumes;
  private final AtomicInteger prepared = new AtomicInteger();

  @BeforeAll
  static void bubblewrap() {
    Tools.require("bwrap", "bubblewrap");
  }

  @AfterEach
  void deleteEveryJob() {
    cluster().listAll().forEach(TrainingJob::delete);
  }

  private LocalCluster cluster() {
    return Clusters.local().stateDir(state).volumesDir(volumes);
  }

  private Pipeline pipeline(String script, String... args) {
    BuildContext context = BuildContext.empty()
        .withFile("/app/train.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/train.py"));
    return Fairing.pipeline().progress(ProgressListener.NONE).preprocessor(() -> {
      prepared.incrementAndGet();
      return context;
    }).deployer(Deployers.pyTorchJob("ignored").workers(0).args(args).on(cluster()));
  }

  private static double score(Trial trial) {
    double x = Double.parseDouble(trial.parameters().get("x"));
    return 1 - (x - 0.3) * (x - 0.3) + (trial.parameters().get("variant").equals("b") ? 0.1 : 0);
  }

  @Test
  void recordedObjectivesAreReadForEveryTrialBesideTheOptimizedOne() {
    // loss = 1 - score each epoch: its minimum is one minus the score's maximum.
    String script = """
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--x", type=float, required=True)
        args = parser.parse_args()
        for epoch in range(3):
            score = (1 - (args.x - 0.3) ** 2) * (epoch + 1) / 3
            print(f"epoch={epoch} score={score:.6f} loss={1 - score:.6f}", flush=True)
        print("{metricName: f1, metricValue: 0.5}", flush=True)
        """;
    Experiment experiment = Experiment.of("recorded", pipeline(script))
        .parameter("x", Search.uniform(0, 1))
        .objectives(Objective.maximize("score"), Objective.minimize("loss"),
            Objective.maximize("f1"), Objective.minimize("unreported"))
        .algorithm(Algorithm.random(3))
        .maxTrials(3);

    ExperimentResults results;
    Map<Integer, Map<String, Double>> metrics = new java.util.TreeMap<>();
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofMinutes(3));
      results.trials().forEach(t -> metrics.put(t.number(), run.metrics(t)));
    }

    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(metrics).hasSize(3);
    for (Trial trial : results.trials()) {
      double score = trial.objective().orElseThrow();
      // the optimized first, then the recorded ones, each by its strategy; one never reported
      // is missing
      assertThat(metrics.get(trial.number())).as(trial.toString())
          .containsOnlyKeys("score", "loss", "f1").containsEntry("score", score)
          .containsEntry("f1", 0.5);
      assertThat(new java.util.ArrayList<>(metrics.get(trial.number()).keySet()))
          .containsExactly("score", "loss", "f1");
      assertThat(metrics.get(trial.number()).get("loss")).isCloseTo(1 - score, within(2e-6));
    }
  }

  @Test
  void sixTrialsTwoAtATimeEachScoredFromItsOwnParametersAndTheTrueBestNamed() {
    Experiment experiment = Experiment.of("search", pipeline(ARGS_SCRIPT))
        .parameter("x", Search.uniform(0, 1))
        .parameter("variant", Search.choice("a", "b"))
        .objective(Objective.maximize("score"))
        .algorithm(Algorithm.random(7))
        .maxTrials(6).parallel(2);

    ExperimentResults results;
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofMinutes(3));
    }

    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(results.reason()).isEqualTo("all 6 trials ended, 6 succeeded, 0 failed");
    assertThat(results.trials()).extracting(Trial::name).containsExactly("search-1", "search-2",
        "search-3", "search-4", "search-5", "search-6");
    assertThat(results.trials()).extracting(Trial::parameters)
        .as("the trials the seed proposes, in order").isEqualTo(experiment.plan());
    for (Trial trial : results.trials()) {
      assertThat(trial.status()).isEqualTo(TrialStatus.SUCCEEDED);
      // The objective is the trial's best logged value, here its last epoch's.
      assertThat(trial.objective()).as(trial.toString()).hasValueSatisfying(
          v -> assertThat(v).isCloseTo(score(trial), within(2e-6)));
      assertThat(trial.duration()).hasValueSatisfying(d -> assertThat(d)
          .isGreaterThanOrEqualTo(Duration.ofSeconds(1)));
    }
    Trial best = results.best().orElseThrow();
    assertThat(results.trials()).allSatisfy(t -> assertThat(score(t))
        .isLessThanOrEqualTo(score(best)));
    assertThat(results.toString()).contains("TRIAL", "STATUS", "variant", "x", "score",
        best.number() + " *", "experiment search: Succeeded",
        "best: trial " + best.number() + " score=");

    // Two at a time: the job intervals never overlap three deep, and do overlap two deep.
    List<JobStatus> statuses = results.trials().stream()
        .map(t -> t.job().orElseThrow().status()).toList();
    assertThat(maxOverlap(statuses)).isEqualTo(2);
  }

  private static int maxOverlap(List<JobStatus> statuses) {
    int max = 0;
    for (JobStatus a : statuses) {
      Instant at = a.startTime().orElseThrow();
      int overlapping = 0;
      for (JobStatus b : statuses) {
        if (!b.startTime().orElseThrow().isAfter(at)
            && b.completionTime().orElseThrow().isAfter(at)) {
          overlapping++;
        }
      }
      max = Math.max(max, overlapping);
    }
    return max;
  }

  @Test
  void parametersAsEnvironmentVariablesReachTheScriptAsKatibsEnvStyleDoes() {
    String script = """
        import os
        print(f"loss={abs(float(os.environ['LEARNING_RATE']) - 0.05):.6f}")
        print(f"layers={os.environ['NUM_LAYERS']}")
        """;
    ExperimentResults results;
    try (ExperimentRun run = Experiment.of("env", pipeline(script))
        .parameter("learning-rate", Search.logUniform(0.001, 0.1))
        .parameter("num_layers", Search.intRange(1, 4))
        .objective(Objective.minimize("loss"))
        .parameterStyle(ParameterStyle.ENV)
        .maxTrials(3).parallel(3).run()) {
      results = run.waitForCompletion(Duration.ofMinutes(2));
      // The Kubeflow SDK's get_job_events: every trial's, oldest first, each naming its trial.
      List<JobEvent> events = run.events();
      assertThat(events).extracting(JobEvent::time).isSorted();
      for (Trial trial : results.trials()) {
        assertThat(events).as("trial %s", trial.name()).anyMatch(e -> e.object()
            .contains(trial.name()) && e.reason().endsWith("Succeeded"));
        // get_job_logs(name, trial_name=..): the trial's own lines.
        assertThat(run.trialJob(trial.name()).orElseThrow().logs().snapshot())
            .extracting(l -> l.text()).contains("layers=" + trial.parameters().get("num_layers"));
      }
      assertThatThrownBy(() -> run.trialJob("env-9"))
          .isInstanceOf(InvalidInputException.class).hasMessageContaining("no trial named"
              + " 'env-9'").hasMessageContaining(results.trials().get(0).name());
    }
    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    for (Trial trial : results.trials()) {
      double lr = Double.parseDouble(trial.parameters().get("learning-rate"));
      assertThat(trial.objective()).hasValueSatisfying(v -> assertThat(v).isCloseTo(
          Math.abs(lr - 0.05), within(2e-6)));
      assertThat(trial.job().orElseThrow().metrics().latest("layers")).hasValueSatisfying(
          v -> assertThat(v).isEqualTo(Double.parseDouble(trial.parameters().get("num_layers"))));
    }
    assertThat(results.best().orElseThrow().objective().orElseThrow()).isEqualTo(
        results.trials().stream().mapToDouble(t -> t.objective().orElseThrow()).min()
            .orElseThrow());
  }

  @Test
  void aScriptWrittenForTheTrainersOptimizationJobRunsUnchangedFromThisJvm() {
    // As the Kubeflow SDK's OptimizationJob examples read their values: the Trainer's names.
    String script = """
        import logging, os
        logging.basicConfig(level=logging.INFO)
        lr = float(os.environ["KUBEFLOW_TRAINER_OPT_LR"])
        batch = int(os.environ["KUBEFLOW_TRAINER_OPT_BATCH_SIZE"])
        logging.info("lr=%s batch=%s", lr, batch)
        print(f"accuracy={1 - abs(lr - 0.01) - batch / 1000:.6f}")
        """;
    ExperimentResults results;
    try (ExperimentRun run = Experiment.of("trainer-env", pipeline(script))
        .parameter("lr", Search.logUniform(0.001, 0.1))
        .parameter("batch-size", Search.choice("16", "32"))
        .objective(Objective.maximize("accuracy"))
        .parameterStyle(ParameterStyle.TRAINER_ENV)
        .maxTrials(2).parallel(2).run()) {
      results = run.waitForCompletion(Duration.ofMinutes(2));
    }
    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    for (Trial trial : results.trials()) {
      double lr = Double.parseDouble(trial.parameters().get("lr"));
      int batch = Integer.parseInt(trial.parameters().get("batch-size"));
      assertThat(trial.objective()).hasValueSatisfying(v -> assertThat(v).isCloseTo(
          1 - Math.abs(lr - 0.01) - batch / 1000.0, within(2e-6)));
    }
  }

  @Test
  void theGoalEndsTheSearchWithoutProposingMoreTrials() {
    ExperimentResults results;
    try (ExperimentRun run = Experiment.of("goal", pipeline(ARGS_SCRIPT))
        .parameter("x", Search.uniform(0, 1))
        .parameter("variant", Search.choice("a", "b"))
        .objective(Objective.maximize("score").goal(0.0))
        .maxTrials(5).run()) {
      results = run.waitForCompletion(Duration.ofMinutes(2));
    }
    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(results.reason()).startsWith("goal reached: trial 1 score=");
    assertThat(results.trials()).extracting(Trial::status).containsExactly(
        TrialStatus.SUCCEEDED, TrialStatus.PENDING, TrialStatus.PENDING, TrialStatus.PENDING,
        TrialStatus.PENDING);
    assertThat(cluster().listAll()).extracting(TrainingJob::name).containsExactly("goal-1");
    // The context the checks read is the one built and run: prepared once.
    assertThat(prepared).hasValue(1);
  }

  @Test
  void moreFailedTrialsThanTheBudgetFailTheExperimentAndSayWhyEachFailed() {
    ExperimentResults results;
    // --fail-above=-1: every trial diverges.
    try (ExperimentRun run = Experiment.of("budget", pipeline(ARGS_SCRIPT, "--fail-above=-1"))
        .parameter("x", Search.uniform(0, 1))
        .parameter("variant", Search.choice("a", "b"))
        .objective(Objective.maximize("score"))
        .maxTrials(6).maxFailedTrials(1).run()) {
      // As a job's wait throws when it fails, with why.
      ExperimentFailedException failed = org.junit.jupiter.api.Assertions.assertThrows(
          ExperimentFailedException.class, () -> run.waitForCompletion(Duration.ofMinutes(2)));
      assertThat(failed.getMessage()).contains("experiment [budget] failed: 2 trials"
          + " failed, more than maxFailedTrials=1; trial 1 (", ") failed: ");
      results = failed.results();
    }
    assertThat(results.phase()).isEqualTo(ExperimentPhase.FAILED);
    assertThat(results.reason()).isEqualTo("2 trials failed, more than maxFailedTrials=1");
    assertThat(results.count(TrialStatus.FAILED)).isEqualTo(2);
    assertThat(results.count(TrialStatus.PENDING)).isEqualTo(4);
    assertThat(results.trials().get(0).message()).hasValueSatisfying(m -> assertThat(m)
        .contains("PyTorchJobFailed", "last line: ValueError: x=", "diverged"));
    assertThat(results.best()).isEmpty();
    assertThat(results.toString()).contains("no trial has score yet");
  }

  @Test
  void aScriptThatNeverPrintsTheMetricFailsTheExperimentNamingWhatItDidPrint() {
    ExperimentResults results;
    try (ExperimentRun run = Experiment.of("nometric", pipeline(ARGS_SCRIPT))
        .parameter("x", Search.uniform(0, 1))
        .parameter("variant", Search.choice("a", "b"))
        .objective(Objective.maximize("accuracy"))
        .maxTrials(2).parallel(2).run()) {
      ExperimentFailedException failed = org.junit.jupiter.api.Assertions.assertThrows(
          ExperimentFailedException.class, () -> run.waitForCompletion(Duration.ofMinutes(2)));
      assertThat(failed.hint()).hasValueSatisfying(h -> assertThat(h).contains("dryRun()"));
      results = failed.results();
    }
    assertThat(results.phase()).isEqualTo(ExperimentPhase.FAILED);
    assertThat(results.trials()).extracting(Trial::status).containsOnly(
        TrialStatus.METRICS_UNAVAILABLE);
    assertThat(results.trials().get(0).message()).hasValueSatisfying(m -> assertThat(m)
        .startsWith("the job succeeded but its log has no value of accuracy that the metrics"
            + " collector's filters read (accuracy=<number> or {metricName: accuracy,"
            + " metricValue: <number>}); they read ").contains("score"));
    assertThat(results.reason()).isEqualTo("no trial printed accuracy: 2 of 2 failed or printed"
        + " no value of accuracy the metrics collector reads");
  }

  @Test
  void closeStopsFollowingAndLeavesTheTrialsWhileDeleteRemovesThem() throws Exception {
    String slow = "import time\ntime.sleep(60)\nprint('score=1')\n";
    ExperimentRun run = Experiment.of("stopped", pipeline(slow))
        .parameter("x", Search.uniform(0, 1))
        .objective(Objective.maximize("score"))
        .maxTrials(4).parallel(2).run();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (run.results().count(TrialStatus.RUNNING) < 2 && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    assertThat(run.results().count(TrialStatus.RUNNING)).isEqualTo(2);
    assertThat(threads()).as("one waiter per running trial").filteredOn(n -> n.startsWith(
        "fairing4j-trial-stopped-")).hasSize(2);
    run.close();
    assertThat(threads()).as("the loop and the trials' waiters ended")
        .noneMatch(n -> n.startsWith("fairing4j-experiment-stopped"))
        .noneMatch(n -> n.startsWith("fairing4j-trial-stopped"));
    assertThat(cluster().listAll()).extracting(TrainingJob::name)
        .containsExactlyInAnyOrder("stopped-1", "stopped-2");
    Thread.sleep(1500);
    assertThat(cluster().listAll()).as("no trial submitted after close()").hasSize(2);

    run.delete();
    assertThat(cluster().listAll()).isEmpty();
  }

  private static List<String> threads() {
    List<String> names = new ArrayList<>();
    Thread.getAllStackTraces().keySet().forEach(t -> names.add(t.getName()));
    return names;
  }

  @Test
  void theSameSeedProposesTheSameTrialsAndAnotherSeedOthers() {
    Experiment a = Experiment.of("a", pipeline(ARGS_SCRIPT)).parameter("x", Search.uniform(0, 1))
        .algorithm(Algorithm.random(11)).maxTrials(4);
    assertThat(a.plan()).isEqualTo(Experiment.of("b", pipeline(ARGS_SCRIPT))
        .parameter("x", Search.uniform(0, 1)).algorithm(Algorithm.random(11)).maxTrials(4)
        .plan());
    assertThat(a.plan()).isNotEqualTo(a.algorithm(Algorithm.random(12)).plan());
    assertThat(a.plan()).allSatisfy(p -> assertThat(p).containsOnlyKeys("x"));
    assertThat(Map.copyOf(a.plan().get(0))).isEqualTo(a.plan().get(0));
  }

  @Test
  void attachResumesAStoppedExperimentWithoutRerunningItsFinishedTrials() throws Exception {
    // Each run of a trial appends its x to a file on a claim, so a rerun would show.
    String script = """
        import argparse, time
        parser = argparse.ArgumentParser()
        parser.add_argument("--x", type=float)
        args = parser.parse_args()
        with open("/runs/started", "a") as f:
            f.write(f"{args.x}\\n")
        time.sleep(2)
        print(f"score={1 - (args.x - 0.3) ** 2:.6f}")
        """;
    Pipeline pipeline = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(() -> BuildContext.empty()
            .withFile("/app/train.py", ContextFile.ofText(script))
            .withCommand(List.of("python", "/app/train.py")))
        .deployer(Deployers.pyTorchJob("ignored").workers(0)
            .mutate(Mutators.pvc("runs", "/runs")).on(cluster()));
    Experiment experiment = Experiment.of("resumed", pipeline)
        .parameter("x", Search.uniform(0, 1)).objective(Objective.maximize("score"))
        .maxTrials(4);

    ExperimentRun first = experiment.run();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (first.results().count(TrialStatus.SUCCEEDED) < 1 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    first.close(); // as a JVM that exits: the thread ends, trial 2's job keeps running
    assertThat(first.results().count(TrialStatus.SUCCEEDED)).isEqualTo(1);
    assertThatThrownBy(experiment::run).isInstanceOfSatisfying(InvalidInputException.class,
        e -> assertThat(e.getMessage()).contains("resumed has run before", "attach()"));

    ExperimentResults results;
    try (ExperimentRun resumed = experiment.attach()) {
      results = resumed.waitForCompletion(Duration.ofMinutes(2));
    }
    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(results.trials()).extracting(Trial::status).containsOnly(TrialStatus.SUCCEEDED);
    assertThat(results.trials()).extracting(Trial::parameters).isEqualTo(experiment.plan());
    assertThat(Files.readAllLines(volumes.resolve("runs").resolve("started")))
        .as("each trial ran once").map(Double::parseDouble).containsExactlyInAnyOrderElementsOf(
            experiment.plan().stream().map(p -> Double.parseDouble(p.get("x"))).toList());

    // Attaching again after the end reads the same results and submits nothing.
    try (ExperimentRun again = experiment.attach()) {
      assertThat(again.waitForCompletion(Duration.ofSeconds(30)).trials())
          .extracting(Trial::objective).isEqualTo(results.trials().stream()
              .map(Trial::objective).toList());
    }
    assertThat(Files.readAllLines(volumes.resolve("runs").resolve("started"))).hasSize(4);
  }

  @Test
  void attachRefusesAnExperimentThatNeverRanAndTrialsRunWithOtherParameters() {
    Experiment experiment = Experiment.of("changed", pipeline(ARGS_SCRIPT))
        .parameter("x", Search.uniform(0, 1)).parameter("variant", Search.choice("a", "b"))
        .objective(Objective.maximize("score")).algorithm(Algorithm.random(1)).maxTrials(2);
    assertThatThrownBy(experiment::attach).isInstanceOfSatisfying(InvalidInputException.class,
        e -> assertThat(e.getMessage()).contains("no trial of changed exists", "run() starts"));

    try (ExperimentRun run = experiment.run()) {
      run.waitForCompletion(Duration.ofMinutes(1));
    }
    assertThatThrownBy(() -> experiment.algorithm(Algorithm.random(2)).attach())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.getMessage())
            .contains("trial job changed-1 was run with other parameters", "seed"));
    assertThatThrownBy(() -> experiment.parameterStyle(ParameterStyle.ENV).attach())
        .hasMessageContaining("other parameters");

    // A job of the experiment's trial name that no experiment started.
    pipeline(ARGS_SCRIPT).variant(JobVariant.named("other-1")).run();
    assertThatThrownBy(() -> Experiment.of("other", pipeline(ARGS_SCRIPT))
        .parameter("x", Search.uniform(0, 1)).objective(Objective.maximize("score")).attach())
        .hasMessageContaining("PyTorchJob other-1 exists and is not a trial of experiment other");
  }

  @Test
  void theMedianRuleStopsTrialsWorseThanTheSucceededOnesMedian() {
    // Each epoch prints the same score, so a trial's latest value is its average.
    String script = """
        import argparse, time
        parser = argparse.ArgumentParser()
        parser.add_argument("--x", type=float)
        args = parser.parse_args()
        for epoch in range(8):
            print(f"score={1 - (args.x - 0.3) ** 2:.6f}", flush=True)
            time.sleep(1)
        """;
    Experiment experiment = Experiment.of("median", pipeline(script))
        .parameter("x", Search.uniform(0, 1)).objective(Objective.maximize("score"))
        .algorithm(Algorithm.random(3)).maxTrials(5)
        .earlyStopping(EarlyStopping.medianStop().minTrials(2).startStep(2));
    // What the rule decides, trial by trial, one at a time.
    List<TrialStatus> expected = new ArrayList<>();
    List<Double> succeeded = new ArrayList<>();
    for (Map<String, String> trial : experiment.plan()) {
      double x = Double.parseDouble(trial.get("x"));
      double score = 1 - (x - 0.3) * (x - 0.3);
      List<Double> sorted = succeeded.stream().sorted().toList();
      double median = sorted.isEmpty() ? 0 : sorted.size() % 2 == 1
          ? sorted.get(sorted.size() / 2)
          : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
      if (succeeded.size() >= 2 && score < median) {
        expected.add(TrialStatus.EARLY_STOPPED);
      } else {
        expected.add(TrialStatus.SUCCEEDED);
        succeeded.add(score);
      }
    }
    assertThat(expected).as("seed 3 stops at least one trial").contains(
        TrialStatus.EARLY_STOPPED);

    ExperimentResults results;
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofMinutes(3));
    }
    assertThat(results.trials()).extracting(Trial::status).isEqualTo(expected);
    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(results.reason()).contains("stopped early");
    for (Trial stopped : results.trials()) {
      if (stopped.status() == TrialStatus.EARLY_STOPPED) {
        assertThat(stopped.message()).hasValueSatisfying(m -> assertThat(m)
            .startsWith("stopped early: score=").contains("worse than the median"));
        assertThat(stopped.duration()).hasValueSatisfying(d -> assertThat(d)
            .isLessThan(Duration.ofSeconds(8)));
        assertThat(cluster().listAll()).extracting(TrainingJob::name)
            .doesNotContain(stopped.name());
      }
    }
    assertThat(results.best().orElseThrow().status()).isEqualTo(TrialStatus.SUCCEEDED);
  }
}

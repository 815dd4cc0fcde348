package dev.fairing4j.examples.bench;

import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.tuning.Experiment;
import dev.fairing4j.deployer.tuning.ExperimentPhase;
import dev.fairing4j.deployer.tuning.ExperimentResults;
import dev.fairing4j.deployer.tuning.ExperimentRun;
import dev.fairing4j.examples.FashionMnist;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code scripts/bench.sh tune}: what a client-side experiment costs over running the same
 * trials one by one by hand. Seed 004's search (learning rate and momentum over the
 * FashionMNIST script on a subset) on {@code Clusters.local()}: the trials the experiment
 * proposes, run by hand as ordinary jobs one after another (submit, wait, read the accuracy),
 * then as an experiment one at a time, then two at a time. Prints trials per hour of each and the
 * experiment's overhead per trial (its wall time over the hand-run's, per trial), as
 * {@code bench.<name>=<value>} lines. Both run in one warm JVM.
 *
 * <pre>usage: TuningBenchmark [trials (default 6)] [samples (default 1500)]</pre>
 */
public final class TuningBenchmark {
  private static final long TARGET_OVERHEAD_MS = 1000;

  private TuningBenchmark() {}

  /** Runs the benchmark and prints its figures. */
  public static void main(String[] args) throws Exception {
    int trials = args.length > 0 ? Integer.parseInt(args[0]) : 6;
    int samples = args.length > 1 ? Integer.parseInt(args[1]) : 1500;
    Path work = Files.createTempDirectory("fairing4j-bench-tune");
    LocalCluster cluster = Clusters.local().stateDir(work.resolve("state"))
        .volumesDir(work.resolve("volumes"));
    FashionMnist training = new FashionMnist("bench", 1, samples, 500, 0);
    List<Map<String, String>> plan = training.experiment("warm", cluster).maxTrials(trials)
        .plan();

    // One unmeasured trial warms the page cache and the JIT for both.
    byHand(cluster, training, plan.subList(0, 1), "warm");

    long hand = byHand(cluster, training, plan, "hand");
    long serial = experiment(cluster, training, "serial", trials, 1);
    long parallel = experiment(cluster, training, "parallel", trials, 2);

    System.out.println("bench.tune.trials=" + trials);
    System.out.println("bench.tune.samples=" + samples);
    System.out.println("bench.tune.by_hand_ms=" + hand);
    System.out.println("bench.tune.experiment_serial_ms=" + serial);
    System.out.println("bench.tune.experiment_parallel2_ms=" + parallel);
    System.out.printf(Locale.ROOT, "bench.tune.by_hand_trials_per_hour=%.0f%n",
        perHour(trials, hand));
    System.out.printf(Locale.ROOT, "bench.tune.serial_trials_per_hour=%.0f%n",
        perHour(trials, serial));
    System.out.printf(Locale.ROOT, "bench.tune.parallel2_trials_per_hour=%.0f%n",
        perHour(trials, parallel));
    long overhead = (serial - hand) / trials;
    System.out.printf(Locale.ROOT, "bench.tune.overhead_per_trial_ms=%d (target <= %d: %s)%n",
        overhead, TARGET_OVERHEAD_MS, overhead <= TARGET_OVERHEAD_MS ? "PASS" : "MISS");
  }

  private static double perHour(int trials, long millis) {
    return trials * 3_600_000.0 / millis;
  }

  /** The trials as a user runs them without the SDK's experiments: one job after another. */
  private static long byHand(LocalCluster cluster, FashionMnist training,
      List<Map<String, String>> plan, String prefix) {
    long start = System.nanoTime();
    int n = 0;
    for (Map<String, String> trial : plan) {
      List<String> args = new ArrayList<>(training.trialArgs());
      trial.forEach((name, value) -> args.add("--" + name + "=" + value));
      TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
          .preprocessor(FashionMnist.script())
          .deployer(Deployers.pyTorchJob(prefix + "-" + ++n).workers(0)
              .args(args.toArray(String[]::new)).on(cluster))
          .run();
      if (job.waitForCompletion(Duration.ofMinutes(10)).phase() != JobPhase.SUCCEEDED) {
        throw new IllegalStateException(job.name() + " failed: " + job.status());
      }
      job.metrics().latest("accuracy").orElseThrow();
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    cluster.listAll().forEach(TrainingJob::delete);
    return millis;
  }

  private static long experiment(LocalCluster cluster, FashionMnist training, String name,
      int trials, int parallel) {
    Experiment experiment = training.experiment(name, cluster).maxTrials(trials)
        .parallel(parallel);
    long start = System.nanoTime();
    ExperimentResults results;
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofHours(1));
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    if (results.phase() != ExperimentPhase.SUCCEEDED) {
      throw new IllegalStateException(results.toString());
    }
    System.out.println(results);
    cluster.listAll().forEach(TrainingJob::delete);
    return millis;
  }
}

package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.TrainingJob;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What follows one experiment for an {@link ExperimentRun}: the SDK's own trial loop, or a
 * reader of what Katib reports. {@link #run()} is the body of the run's thread; it returns when
 * the experiment has ended or {@link #close()} was called.
 */
interface Following {
  /** The experiment's name. */
  String name();

  /** Follows until the end or {@link #close()}. */
  void run();

  /** Where the experiment stands now. */
  ExperimentResults results();

  /**
   * Waits until the experiment ends, {@code timeout} passes or {@link #close()}; then results.
   * The follower calls {@code notifyAll()} on itself when its results or closed state change.
   */
  default ExperimentResults awaitEnd(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      try {
        while (!results().phase().isFinished() && !isClosed()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            break;
          }
          wait(Math.max(1, left / 1_000_000));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return results();
    }
  }

  /**
   * {@code trial}'s value of each of {@code objectives} (the optimized one first), by each
   * one's strategy; a metric it did not report is missing. The optimized one is the trial's
   * objective; the others are read from the trial job's metrics, where a follower has nothing
   * better.
   */
  default Map<String, Double> metrics(Trial trial, List<Objective> objectives) {
    Map<String, Double> values = new LinkedHashMap<>();
    trial.objective().ifPresent(v -> values.put(objectives.get(0).metric(), v));
    if (objectives.size() > 1) {
      Optional<JobMetrics> metrics;
      try {
        metrics = trial.job().map(TrainingJob::metrics);
      } catch (FairingException e) {
        metrics = Optional.empty(); // its job is gone: what it reported went with it
      }
      for (Objective objective : objectives.subList(1, objectives.size())) {
        metrics.flatMap(objective::valueOf).ifPresent(v -> values.put(objective.metric(), v));
      }
    }
    return values;
  }

  /** Whether {@link #close()} was called. */
  boolean isClosed();

  /** Stops following; {@link #run()} returns soon after. */
  void close();

  /** Deletes what the experiment created on the cluster, after {@link #close()}. */
  void deleteCreated();
}

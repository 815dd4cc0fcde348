package dev.fairing4j.deployer.tuning;

import java.time.Duration;

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

  /** Whether {@link #close()} was called. */
  boolean isClosed();

  /** Stops following; {@link #run()} returns soon after. */
  void close();

  /** Deletes what the experiment created on the cluster, after {@link #close()}. */
  void deleteCreated();
}

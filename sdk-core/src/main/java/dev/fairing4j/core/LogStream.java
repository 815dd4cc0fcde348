package dev.fairing4j.core;

import java.time.Duration;

/**
 * A running log follow: lines arrive on background threads until every followed replica has
 * ended or the stream is closed. Closing stops the threads and never throws, so it fits
 * try-with-resources in JShell and notebooks.
 */
public interface LogStream extends AutoCloseable {
  /**
   * How long {@link #close()} waits, at most, for the replicas of a job that has ended to finish
   * and for everything they wrote to be delivered.
   */
  Duration DRAIN_ON_CLOSE = Duration.ofSeconds(10);

  /** Waits until every followed replica's stream has ended; true if it did within {@code timeout}. */
  boolean awaitEnd(Duration timeout);

  /** True once every followed stream has ended or the stream was closed. */
  boolean isDone();

  /**
   * Stops following. When the job has ended, it first waits (at most {@link #DRAIN_ON_CLOSE})
   * until every followed replica has ended and all it wrote was delivered, so the natural
   * pattern loses no line:
   * <pre>{@code
   * try (var logs = job.logs().follow(System.out::println)) {
   *   job.waitForCompletion(Duration.ofMinutes(30));
   * }   // the Workers' last lines, written as the Master finished, are delivered here
   * }</pre>
   * A job still running is cut at once: lines it writes later are not delivered.
   */
  @Override
  void close();
}

package dev.fairing4j.core;

import java.time.Duration;

/**
 * A running log follow: lines arrive on background threads until every followed replica has
 * ended or the stream is closed. Closing stops the threads and never throws, so it fits
 * try-with-resources in JShell and notebooks.
 */
public interface LogStream extends AutoCloseable {
  /** Waits until every followed replica's stream has ended; true if it did within {@code timeout}. */
  boolean awaitEnd(Duration timeout);

  /** True once every followed stream has ended or the stream was closed. */
  boolean isDone();

  /** Stops following; lines not yet delivered are dropped. */
  @Override
  void close();
}

package dev.fairing4j.core;

import java.time.Duration;

/**
 * A handle on a submitted training job, wherever it runs (a Kubernetes cluster or this machine):
 * read its status, follow the logs of every replica, wait for the end, clean up. A handle holds no
 * open connection between calls, so it can be kept in a notebook variable for hours.
 */
public interface TrainingJob {
  /** The job name. */
  String name();

  /** The namespace it runs in. */
  String namespace();

  /** The kind: {@code PyTorchJob}, {@code TFJob} or {@code Job}. */
  String kind();

  /** Reads the current status, pods included. */
  JobStatus status();

  /**
   * Blocks until the job succeeds (returning its final status) or fails.
   *
   * @throws JobFailedException when the job fails, with the failed replica, exit code, message,
   *     last log lines and warning events
   * @throws JobTimeoutException when {@code timeout} passes first
   */
  JobStatus waitForCompletion(Duration timeout);

  /** The logs of every replica. */
  JobLogs logs();

  /** Deletes the job and everything it owns; returns when they are gone. */
  void delete();
}

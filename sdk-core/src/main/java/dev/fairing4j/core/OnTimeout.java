package dev.fairing4j.core;

/**
 * What {@link TrainingJob#waitForCompletion(java.time.Duration, OnTimeout)} does with a job that
 * has not finished when the caller's timeout passes, on every cluster. The SDK enforces the
 * deadline itself because the operator's {@code activeDeadlineSeconds} can fire late; by default
 * the job is left running.
 */
public enum OnTimeout {
  /** Leave the job running; the caller decides later. */
  KEEP,
  /** Delete the job and everything it owns, as {@link TrainingJob#delete()} does. */
  DELETE,
  /**
   * Suspend the job: its pods are deleted, the object stays and can be resumed. Only where the
   * job's controller can resume it (Kubernetes); elsewhere the wait refuses it before waiting.
   */
  SUSPEND
}

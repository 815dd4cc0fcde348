package dev.fairing4j.deployer;

/**
 * What a wait does with a job that has not finished when the caller's timeout passes. The SDK
 * enforces the deadline itself because the operator's {@code activeDeadlineSeconds} can fire
 * late; by default the job is left running.
 */
public enum OnTimeout {
  /** Leave the job running; the caller decides later. */
  KEEP,
  /** Delete the job and everything it owns, waiting until they are gone. */
  DELETE,
  /** Suspend the job: its pods are deleted, the object stays and can be resumed. */
  SUSPEND
}

package dev.fairing4j.deployer.tuning;

/**
 * Where a trial is, in Katib's words: proposed and waiting for a slot, running, or ended one of
 * four ways. Only a {@link #SUCCEEDED} trial has an objective value.
 */
public enum TrialStatus {
  /** Proposed; waits for one of the experiment's parallel slots. */
  PENDING("Pending"),
  /** Its job is submitted and not finished. */
  RUNNING("Running"),
  /** Its job succeeded and it printed the objective metric. */
  SUCCEEDED("Succeeded"),
  /** Its job failed, or could not be submitted. */
  FAILED("Failed"),
  /**
   * Its job succeeded without printing the objective metric (a misspelt name, a print the
   * parser does not read): counted as failed, as Katib counts it.
   */
  METRICS_UNAVAILABLE("MetricsUnavailable"),
  /**
   * Stopped early by Katib's early stopping (its objective so far was worse than the median of
   * the trials before it); it has the objective value it had reached.
   */
  EARLY_STOPPED("EarlyStopped");

  private final String label;

  TrialStatus(String label) {
    this.label = label;
  }

  /** Whether the trial is over. */
  public boolean isFinished() {
    return this != PENDING && this != RUNNING;
  }

  /** Whether the trial counts against the failed-trial budget. */
  public boolean isFailure() {
    return this == FAILED || this == METRICS_UNAVAILABLE;
  }

  /** Katib's name for it, e.g. {@code MetricsUnavailable}. */
  @Override
  public String toString() {
    return label;
  }
}

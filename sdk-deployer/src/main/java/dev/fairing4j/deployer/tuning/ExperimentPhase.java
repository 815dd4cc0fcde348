package dev.fairing4j.deployer.tuning;

/** Whether an experiment is still proposing and running trials, and how it ended. */
public enum ExperimentPhase {
  /** Trials are running or still to be proposed. */
  RUNNING("Running"),
  /** Every trial ran (or the goal was reached) and at least one trial has an objective value. */
  SUCCEEDED("Succeeded"),
  /**
   * More trials failed than the budget allows, no trial produced an objective value, or a trial
   * could not be submitted.
   */
  FAILED("Failed");

  private final String label;

  ExperimentPhase(String label) {
    this.label = label;
  }

  /** Whether the experiment is over. */
  public boolean isFinished() {
    return this != RUNNING;
  }

  @Override
  public String toString() {
    return label;
  }
}

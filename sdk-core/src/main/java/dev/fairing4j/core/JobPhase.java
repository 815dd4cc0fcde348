package dev.fairing4j.core;

import java.util.List;

/**
 * Where a training job stands, by the Kubeflow operator's rule: a job IS X when its condition of
 * type X has status "True", and when several are True the one earliest in
 * {@link #PRECEDENCE} wins (Failed > Succeeded > Queued > Suspended > Restarting > Running >
 * Created). {@link #PENDING} means no condition is True yet: just submitted, or no operator is
 * reconciling.
 */
public enum JobPhase {
  /** No condition is True yet. */
  PENDING("Pending"),
  /** The operator accepted the job and created its pods and Services. */
  CREATED("Created"),
  /** At least one replica runs. */
  RUNNING("Running"),
  /** A replica failed and is being recreated under its restart policy. */
  RESTARTING("Restarting"),
  /** The job is suspended: its pods are deleted until it is resumed. */
  SUSPENDED("Suspended"),
  /**
   * The job waits in a Kueue queue for admission: suspended by Kueue (which created it so),
   * until the queue admits it and resumes it.
   */
  QUEUED("Queued"),
  /** The job finished successfully. Terminal. */
  SUCCEEDED("Succeeded"),
  /** The job failed. Terminal. */
  FAILED("Failed");

  /** Condition types from the strongest to the weakest. */
  public static final List<JobPhase> PRECEDENCE =
      List.of(FAILED, SUCCEEDED, QUEUED, SUSPENDED, RESTARTING, RUNNING, CREATED);

  private final String conditionType;

  JobPhase(String conditionType) {
    this.conditionType = conditionType;
  }

  /** The operator's condition type for this phase, e.g. {@code "Succeeded"}. */
  public String conditionType() {
    return conditionType;
  }

  /** True for Succeeded and Failed: nothing changes after them. */
  public boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED;
  }

  @Override
  public String toString() {
    return conditionType;
  }
}

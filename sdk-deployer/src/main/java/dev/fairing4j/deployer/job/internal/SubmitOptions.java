package dev.fairing4j.deployer.job.internal;

/**
 * How to submit: when the name is taken, and whether a TrainJob may be reshaped for the cluster.
 *
 * @param replaceExisting delete an existing job of the same name first (and wait until it is gone)
 * @param adaptTrainerApi whether a TrainJob is sent in the shape the cluster's TrainJob CRD
 *     takes (v2.0's {@code podSpecOverrides} instead of v2.3's {@code runtimePatches}) rather than
 *     as rendered; without it a mismatch fails before anything is created
 */
public record SubmitOptions(boolean replaceExisting, boolean adaptTrainerApi) {
  /** Fail with a clear error when the name is taken. */
  public static final SubmitOptions DEFAULT = new SubmitOptions(false);

  /** {@code replaceExisting} as given; a TrainJob is sent as rendered. */
  public SubmitOptions(boolean replaceExisting) {
    this(replaceExisting, false);
  }
}

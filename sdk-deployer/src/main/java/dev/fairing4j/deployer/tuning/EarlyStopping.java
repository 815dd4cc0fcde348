package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.internal.Validators;

/**
 * Katib's median stopping rule: once {@code minTrials} trials have succeeded, a running trial
 * whose latest objective value, after it has reported at least {@code startStep} of them, is
 * worse than the median of the succeeded trials' average values is stopped early. Saves the
 * time of trials that are clearly behind; their jobs are deleted and they show as
 * {@link TrialStatus#EARLY_STOPPED} with the value they had reached.
 *
 * @param minTrials succeeded trials needed before any trial is stopped (Katib's
 *     {@code min_trials_required}, default 3)
 * @param startStep values a trial reports before it can be stopped (Katib's
 *     {@code start_step}, default 4)
 */
public record EarlyStopping(int minTrials, int startStep) {
  /** Checks the counts. */
  public EarlyStopping {
    Validators.atLeast("earlyStopping minTrials", minTrials, 1);
    Validators.atLeast("earlyStopping startStep", startStep, 1);
  }

  /** Katib's {@code medianstop} with its defaults: 3 succeeded trials, 4 values. */
  public static EarlyStopping medianStop() {
    return new EarlyStopping(3, 4);
  }

  /** The same rule, needing {@code count} succeeded trials first. */
  public EarlyStopping minTrials(int count) {
    return new EarlyStopping(count, startStep);
  }

  /** The same rule, judging a trial only after it reported {@code count} values. */
  public EarlyStopping startStep(int count) {
    return new EarlyStopping(minTrials, count);
  }
}

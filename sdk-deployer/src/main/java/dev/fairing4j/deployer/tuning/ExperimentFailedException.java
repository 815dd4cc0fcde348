package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.FairingException;

/**
 * Thrown by {@link ExperimentRun#waitForCompletion} when the experiment ends Failed, as a job's
 * wait throws {@link dev.fairing4j.core.JobFailedException}: the message says why it failed
 * (the failed-trial budget spent, no trial reporting the metric, the controller's reason) and
 * why its first failed trials failed; {@link #results()} holds every trial, so a notebook can
 * still show the table and plot what did run.
 */
public final class ExperimentFailedException extends FairingException {
  private static final long serialVersionUID = 1L;

  private final transient ExperimentResults results;

  /** The exception for {@code results}, an experiment that ended Failed. */
  public ExperimentFailedException(ExperimentResults results) {
    this(results, results.reason());
  }

  /** The exception for {@code results}, which ended as {@code why} says. */
  public ExperimentFailedException(ExperimentResults results, String why) {
    super("experiment", results.name(), why + failedTrials(results), hint(results), null, null,
        null);
    this.results = results;
  }

  /** Every trial as the experiment ended. */
  public ExperimentResults results() {
    return results;
  }

  private static String failedTrials(ExperimentResults results) {
    StringBuilder text = new StringBuilder();
    results.trials().stream().filter(t -> t.status().isFailure()).limit(3).forEach(t -> text
        .append("; trial ").append(t.number()).append(" (").append(t.describeParameters())
        .append(") ").append(t.status().name().toLowerCase(java.util.Locale.ROOT)
            .replace('_', ' ')).append(t.message().map(m -> ": " + m).orElse("")));
    return text.toString();
  }

  private static String hint(ExperimentResults results) {
    boolean noMetric = results.trials().stream()
        .anyMatch(t -> t.status() == TrialStatus.METRICS_UNAVAILABLE);
    return noMetric ? "make the trials print the objective in a form the metrics collector"
        + " reads (Experiment.dryRun() checks the training code), then run it again under"
        + " another name; e.results() holds every trial"
        : "read why the trials failed (e.results(), each trial's job logs), fix the script or"
        + " the search space, and run it again under another name";
  }
}

package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.BuiltPipeline;
import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobVariant;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Durations;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.core.internal.Validators;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running experiment ({@link Experiment#run()}, {@link Experiment#attach()}). With the SDK's
 * own trials a daemon thread of this JVM proposes them, keeps the chosen number running, reads
 * each finished trial's objective from its logs, and stops at the goal, at the last trial, or
 * past the failed-trial budget; on Katib the thread reads what Katib reports. A notebook cell
 * ending with one shows the trials table as it stands.
 *
 * <p>{@link #close()} stops following: no further trial is submitted, and what runs on the
 * cluster is left as it is. {@link #delete()} also deletes what the experiment created: every
 * trial's job, or Katib's Experiment. Either ends this JVM's threads.
 */
public final class ExperimentRun implements Displayable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExperimentRun.class);

  private final Following loop;
  private final List<Objective> objectives;
  private final Thread thread;
  private final Owner owner;

  private ExperimentRun(Following loop, List<Objective> objectives, Owner owner) {
    this.loop = loop;
    this.objectives = List.copyOf(objectives);
    this.owner = owner;
    this.thread = owner.thread("fairing4j-experiment-" + loop.name(), this::follow);
  }

  /**
   * Starts following: {@code submitted} are the trials (by index) whose jobs exist already,
   * {@code build} gives the image the others run from, asked once, when the first is submitted.
   */
  static ExperimentRun start(String name, Objective objective, List<Objective> recorded,
      MetricsCollector collector, int parallel, Optional<Integer> maxFailedTrials,
      Optional<EarlyStopping> earlyStopping, Supplier<BuiltPipeline> build,
      List<Map<String, String>> plan, List<JobVariant> variants,
      Map<Integer, TrainingJob> submitted) {
    Owner owner = Owner.current();
    List<Objective> objectives = new ArrayList<>(List.of(objective));
    objectives.addAll(recorded);
    return follow(new TrialLoop(name, objective, collector, parallel, maxFailedTrials,
        earlyStopping, build, plan, variants, submitted, owner), objectives, owner);
  }

  /**
   * Starts following {@code following} on a thread of {@code owner}'s; {@code objectives} are
   * the optimized objective, then the recorded ones.
   */
  static ExperimentRun follow(Following following, List<Objective> objectives, Owner owner) {
    ExperimentRun run = new ExperimentRun(following, objectives, owner);
    run.owner.track(run);
    run.thread.start();
    return run;
  }

  private void follow() {
    try {
      loop.run();
    } finally {
      owner.forget(this);
    }
  }

  /** The experiment's name. */
  public String name() {
    return loop.name();
  }

  /** Where the experiment stands now: phase, and every trial proposed so far. */
  public ExperimentResults results() {
    return loop.results();
  }

  /** The best trial so far; empty while none has succeeded. */
  public Optional<Trial> best() {
    return results().best();
  }

  /**
   * Waits until the experiment ends and returns its results, as a job's wait does: it returns
   * when the experiment succeeded (then {@link ExperimentResults#best()} holds a trial) and
   * throws when it failed.
   *
   * @throws ExperimentFailedException when it ended Failed: why, and why its trials failed; its
   *     {@code results()} holds every trial
   * @throws FairingException when it has not ended within {@code timeout} (the trials keep
   *     running: wait again, or {@link #close()}), or when this run was closed first
   */
  public ExperimentResults waitForCompletion(Duration timeout) {
    ExperimentResults results = loop.awaitEnd(timeout);
    if (results.phase() == ExperimentPhase.FAILED) {
      throw new ExperimentFailedException(results);
    }
    if (results.phase().isFinished() && results.best().isEmpty()) {
      // A controller may call it succeeded when it ran out of trials: nothing to keep is a
      // failure, said here rather than by a bare empty best().
      throw new ExperimentFailedException(results, "it ended (" + results.phase() + ": "
          + results.reason() + ") without a succeeded trial");
    }
    if (!results.phase().isFinished()) {
      throw FairingException.of("wait for experiment", name(), "it has not ended within "
          + Durations.human(timeout) + ": " + results.summary(),
          loop.isClosed() ? "the run was closed; its finished trials are in results()"
              : "wait again, or close() it; results() shows each trial", null);
    }
    return results;
  }

  /**
   * What happened to the trials' jobs and their pods, oldest first (the Kubeflow SDK's
   * {@code OptimizerClient.get_job_events(name)}): each trial job's {@link TrainingJob#events()}
   * together, so the object of each event names the trial. A trial whose job is gone (deleted,
   * or its events expired on the API server) adds none.
   */
  public List<JobEvent> events() {
    List<JobEvent> events = new ArrayList<>();
    for (Trial trial : results().trials()) {
      trial.job().ifPresent(job -> {
        try {
          events.addAll(job.events());
        } catch (FairingException e) {
          LOG.debug("No events of trial {} ({}): {}", trial.number(), trial.name(),
              e.getMessage());
        }
      });
    }
    events.sort(Comparator.comparing(JobEvent::time));
    return events;
  }

  /**
   * The value of every objective for {@code trial}, the optimized one first, then those
   * {@link Experiment#objectives(Objective, Objective...)} records, each by its strategy: the
   * Kubeflow SDK's {@code get_best_results(name).metrics} is
   * {@code metrics(results().best().orElseThrow())}. On Katib they are what Katib observed
   * ({@code status.observation}); otherwise they are read from the trial job's log, as the
   * objective is. A metric the trial did not report is missing.
   */
  public Map<String, Double> metrics(Trial trial) {
    Objects.requireNonNull(trial, "trial");
    return loop.metrics(trial, objectives);
  }

  /** The job of trial {@code number} (from 1), once submitted. */
  public Optional<TrainingJob> trialJob(int number) {
    return results().trial(number).flatMap(Trial::job);
  }

  /**
   * The job of the trial called {@code trialName} (as {@link Trial#name()} and the trials table
   * give it), once submitted: the Kubeflow SDK's {@code get_job_logs(name, trial_name=..)} is
   * {@code trialJob(trialName).orElseThrow().logs()}, followed with {@code .follow(..)}.
   *
   * @throws InvalidInputException naming {@code trialName} when no trial has that name, with
   *     the names there are
   */
  public Optional<TrainingJob> trialJob(String trialName) {
    Validators.requireText("trialName", trialName);
    ExperimentResults results = results();
    Trial trial = results.trial(trialName.trim()).orElseThrow(() -> InvalidInputException.of(
        "trialName", "experiment " + name() + " has no trial named '" + trialName.trim()
            + "' (it has " + (results.trials().isEmpty() ? "none yet" : String.join(", ",
                results.trials().stream().map(Trial::name).toList())) + ")",
        "name one of its trials, or pick one by number with trialJob(n)"));
    return trial.job();
  }

  /**
   * Stops following: no further trial is submitted and this JVM's thread ends; the trials'
   * jobs, running or finished, are left on the cluster.
   */
  @Override
  public void close() {
    loop.close();
    thread.interrupt();
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops following, then deletes what the experiment created: every trial's job (running ones
   * are stopped); on Katib, the Experiment, whose trials and jobs Katib deletes with it.
   */
  public void delete() {
    close();
    loop.deleteCreated();
  }

  /** The trials table as text. */
  @Override
  public String toText() {
    return results().toText();
  }

  /** The trials table as HTML. */
  @Override
  public String toHtml() {
    return results().toHtml();
  }

  @Override
  public String toString() {
    return results().toString();
  }
}

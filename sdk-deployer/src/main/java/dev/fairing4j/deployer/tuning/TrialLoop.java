package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.BuiltPipeline;
import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobVariant;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client-side controller of one experiment: submits the proposed trials up to the parallel
 * limit, polls the running ones, reads a finished one's objective from its metrics, and decides
 * when the experiment ends. Its state is read by other threads through {@link #results()}, so
 * every change happens under this object's monitor; the cluster calls do not.
 */
final class TrialLoop {
  private static final Logger LOG = LoggerFactory.getLogger(TrialLoop.class);
  private static final Duration POLL = Duration.ofSeconds(1);

  private final String name;
  private final Objective objective;
  private final int parallel;
  private final Optional<Integer> maxFailedTrials;
  private final BuiltPipeline built;
  private final List<JobVariant> variants;
  private final List<Trial> trials = new ArrayList<>();
  private final long[] submittedAt;
  private ExperimentPhase phase = ExperimentPhase.RUNNING;
  private String reason = "";
  // Set once no further trial may start: the goal was reached, or the budget or a submit failed.
  private Optional<String> stopping = Optional.empty();
  private boolean stoppingFails;
  private boolean closed;

  TrialLoop(String name, Objective objective, int parallel, Optional<Integer> maxFailedTrials,
      BuiltPipeline built, List<Map<String, String>> plan, List<JobVariant> variants) {
    this.name = name;
    this.objective = objective;
    this.parallel = parallel;
    this.maxFailedTrials = maxFailedTrials;
    this.built = built;
    this.variants = List.copyOf(variants);
    for (int i = 0; i < plan.size(); i++) {
      trials.add(Trial.pending(i + 1, variants.get(i).name(), plan.get(i)));
    }
    this.submittedAt = new long[plan.size()];
  }

  String name() {
    return name;
  }

  void run() {
    int next = 0;
    while (!isClosed()) {
      while (next < trials.size() && canStartAnother()) {
        submit(next++);
      }
      if (running().isEmpty() && (next >= trials.size() || isStopping())) {
        end();
        return;
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        return; // close(): the trials are left as they are
      }
      for (int index : running()) {
        poll(index);
      }
    }
  }

  private synchronized boolean canStartAnother() {
    return stopping.isEmpty() && !closed && running().size() < parallel;
  }

  private synchronized boolean isStopping() {
    return stopping.isPresent();
  }

  private synchronized List<Integer> running() {
    List<Integer> running = new ArrayList<>();
    for (int i = 0; i < trials.size(); i++) {
      if (trials.get(i).status() == TrialStatus.RUNNING) {
        running.add(i);
      }
    }
    return running;
  }

  private void submit(int index) {
    TrainingJob job;
    try {
      job = built.run(variants.get(index));
    } catch (RuntimeException e) {
      // Not the trial's training failing: the cluster or the settings refuse every trial alike.
      LOG.warn("experiment {}: trial {} could not be submitted: {}", name, index + 1,
          e.getMessage());
      synchronized (this) {
        trials.set(index, trials.get(index).ended(TrialStatus.FAILED, Optional.empty(),
            Duration.ZERO, Optional.of("not submitted: " + e.getMessage())));
        stop("trial " + (index + 1) + " could not be submitted: " + e.getMessage(), true);
      }
      return;
    }
    synchronized (this) {
      submittedAt[index] = System.nanoTime();
      trials.set(index, trials.get(index).running(job));
    }
    LOG.info("experiment {}: trial {} of {} submitted as {} ({})", name, index + 1,
        trials.size(), job.name(), trials.get(index).describeParameters());
  }

  private void poll(int index) {
    Trial trial;
    synchronized (this) {
      trial = trials.get(index);
    }
    TrainingJob job = trial.job().orElseThrow();
    JobStatus status;
    try {
      status = job.status();
    } catch (RuntimeException e) {
      // A lost connection or a restarting API server: the next poll asks again.
      LOG.warn("experiment {}: reading trial {}'s status failed, retrying: {}", name,
          trial.number(), e.getMessage());
      return;
    }
    if (!status.isTerminal()) {
      return;
    }
    Duration took = status.startTime().flatMap(start -> status.completionTime()
        .map(end -> Duration.between(start, end)))
        .orElseGet(() -> Duration.ofNanos(System.nanoTime() - submittedAt[index]));
    Trial ended = status.phase() == JobPhase.SUCCEEDED ? succeeded(trial, job, took)
        : trial.ended(TrialStatus.FAILED, Optional.empty(), took, Optional.of(whyFailed(status,
            job)));
    LOG.info("experiment {}: trial {} of {} ({}) {}{} in {}", name, ended.number(),
        trials.size(), ended.describeParameters(), ended.status(), ended.objective()
            .map(v -> ": " + objective.metric() + "=" + TrialPlan.render(v))
            .orElse(ended.message().map(m -> ": " + m).orElse("")), Durations.human(took));
    synchronized (this) {
      trials.set(index, ended);
      ended.objective().filter(objective::reached).ifPresent(v -> stop("goal reached: trial "
          + ended.number() + " " + objective.metric() + "=" + TrialPlan.render(v), false));
      long failed = trials.stream().filter(t -> t.status().isFailure()).count();
      maxFailedTrials.filter(max -> failed > max).ifPresent(max -> stop(failed + " trials"
          + " failed, more than maxFailedTrials=" + max, true));
    }
  }

  private Trial succeeded(Trial trial, TrainingJob job, Duration took) {
    JobMetrics metrics;
    try {
      metrics = job.metrics();
    } catch (RuntimeException e) {
      return trial.ended(TrialStatus.METRICS_UNAVAILABLE, Optional.empty(), took,
          Optional.of("its logs could not be read: " + e.getMessage()));
    }
    Optional<Double> value = objective.valueOf(metrics);
    if (value.isPresent()) {
      return trial.ended(TrialStatus.SUCCEEDED, value, took, Optional.empty());
    }
    return trial.ended(TrialStatus.METRICS_UNAVAILABLE, Optional.empty(), took, Optional.of(
        "the job succeeded but printed no '" + objective.metric() + "=<number>' line"
            + (metrics.names().isEmpty() ? "" : " (it printed " + metrics.names() + ")")));
  }

  private static String whyFailed(JobStatus status, TrainingJob job) {
    String condition = status.decidingCondition().map(TrialLoop::describe)
        .orElse("the job failed");
    try {
      List<LogLine> lines = job.logs().snapshot();
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (!lines.get(i).text().isBlank()) {
          return condition + "; last line: " + lines.get(i).text().strip();
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("no logs for {}: {}", job.name(), e.getMessage());
    }
    return condition;
  }

  private static String describe(JobCondition condition) {
    return condition.reason() + (condition.message().isBlank() ? "" : ": "
        + condition.message());
  }

  private void stop(String why, boolean fails) {
    if (stopping.isEmpty()) {
      stopping = Optional.of(why);
      stoppingFails = fails;
      LOG.info("experiment {}: no further trials: {}", name, why);
    }
  }

  private synchronized void end() {
    long succeeded = trials.stream().filter(t -> t.status() == TrialStatus.SUCCEEDED).count();
    long failed = trials.stream().filter(t -> t.status().isFailure()).count();
    long ran = succeeded + failed;
    if (stopping.isPresent()) {
      phase = stoppingFails ? ExperimentPhase.FAILED : ExperimentPhase.SUCCEEDED;
      reason = stopping.get();
    } else if (succeeded == 0) {
      phase = ExperimentPhase.FAILED;
      reason = "no trial printed " + objective.metric() + ": " + failed + " of " + ran
          + " failed or printed no '" + objective.metric() + "=<number>' line";
    } else {
      phase = ExperimentPhase.SUCCEEDED;
      reason = "all " + ran + " trials ended, " + succeeded + " succeeded, " + failed
          + " failed";
    }
    LOG.info("experiment {}: {} ({})", name, phase, reason);
    notifyAll();
  }

  private String progress() {
    long ended = trials.stream().filter(t -> t.status().isFinished()).count();
    long running = trials.stream().filter(t -> t.status() == TrialStatus.RUNNING).count();
    return ended + " of " + trials.size() + " trials ended, " + running + " running"
        + stopping.map(s -> "; no further trials: " + s).orElse("");
  }

  synchronized ExperimentResults results() {
    return new ExperimentResults(name, objective, phase, phase.isFinished() ? reason
        : progress(), trials);
  }

  synchronized ExperimentResults awaitEnd(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (!phase.isFinished() && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        wait(Math.max(1, left / 1_000_000));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return results();
  }

  synchronized boolean isClosed() {
    return closed;
  }

  synchronized void close() {
    closed = true;
    notifyAll();
  }
}

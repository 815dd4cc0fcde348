package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.BuiltPipeline;
import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobVariant;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.MetricPoint;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Durations;
import dev.fairing4j.core.internal.Owner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client-side controller of one experiment: submits the proposed trials up to the parallel
 * limit, learns of a trial's end from a waiter thread per running trial (the job's own
 * {@code waitForCompletion}: the shared watch on Kubernetes, the supervisor's signal locally),
 * reads a finished one's objective from its metrics, and decides when the experiment ends. Its
 * state is read by other threads through {@link #results()}, so every change happens under this
 * object's monitor; the cluster calls do not. Its threads (this loop's and one waiter per running
 * trial, at most {@code parallel}) end with {@link #close()}.
 */
final class TrialLoop implements Following {
  private static final Logger LOG = LoggerFactory.getLogger(TrialLoop.class);
  // How often running trials are read when no waiter has spoken: a net for a lost waiter.
  private static final Duration SAFETY_POLL = Duration.ofSeconds(30);
  // How long a waiter whose wait failed (a lost connection) waits before the loop reads again.
  private static final Duration RETRY = Duration.ofSeconds(2);
  // How often running trials' metrics are read for the median rule.
  private static final Duration EARLY_STOP_CHECK = Duration.ofSeconds(3);
  // Reads of a trial's status that may fail in a row before the trial counts as failed.
  private static final int READ_ATTEMPTS = 5;

  private final String name;
  private final Objective objective;
  private final MetricsCollector collector;
  private final int parallel;
  private final Optional<Integer> maxFailedTrials;
  private final Optional<EarlyStopping> earlyStopping;
  // Each succeeded trial's average objective value, for the median rule; the loop's own.
  private final Map<Integer, Double> averages = new HashMap<>();
  private long lastEarlyStopCheck = System.nanoTime();
  private final Supplier<BuiltPipeline> build;
  // Built on the first submission: a resumed experiment with no trial left builds nothing.
  private BuiltPipeline built;
  private final List<JobVariant> variants;
  private final List<Trial> trials = new ArrayList<>();
  private final long[] submittedAt;
  private final int[] failedReads;
  private final Owner owner;
  private final BlockingQueue<Integer> ended = new LinkedBlockingQueue<>();
  // The waiter of each running trial while it waits; it leaves before it tells the loop.
  private final Map<Integer, Thread> waiters = new HashMap<>();
  private ExperimentPhase phase = ExperimentPhase.RUNNING;
  private String reason = "";
  // Set once no further trial may start: the goal was reached, or the budget or a submit failed.
  private Optional<String> stopping = Optional.empty();
  private boolean stoppingFails;
  private boolean closed;

  TrialLoop(String name, Objective objective, MetricsCollector collector, int parallel,
      Optional<Integer> maxFailedTrials, Optional<EarlyStopping> earlyStopping,
      Supplier<BuiltPipeline> build, List<Map<String, String>> plan, List<JobVariant> variants,
      Map<Integer, TrainingJob> submitted, Owner owner) {
    this.name = name;
    this.collector = collector;
    this.earlyStopping = earlyStopping;
    this.owner = owner;
    this.objective = objective;
    this.parallel = parallel;
    this.maxFailedTrials = maxFailedTrials;
    this.build = build;
    this.variants = List.copyOf(variants);
    for (int i = 0; i < plan.size(); i++) {
      trials.add(Trial.pending(i + 1, variants.get(i).name(), plan.get(i)));
    }
    this.submittedAt = new long[plan.size()];
    this.failedReads = new int[plan.size()];
    submitted.forEach((index, job) -> {
      submittedAt[index] = System.nanoTime();
      trials.set(index, trials.get(index).running(job));
    });
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void run() {
    try {
      // Read before anything is submitted: a resumed experiment's finished trials may have
      // reached the goal or spent the budget.
      for (int index : running()) {
        if (!poll(index)) {
          startWaiter(index);
        }
      }
      int next = firstUnsubmitted();
      while (!isClosed()) {
        while (next < trials.size() && canStartAnother()) {
          submit(next++);
        }
        if (running().isEmpty() && (next >= trials.size() || isStopping())) {
          end();
          return;
        }
        Integer index;
        try {
          index = ended.poll((earlyStopping.isPresent() ? EARLY_STOP_CHECK : SAFETY_POLL)
              .toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return; // close(): the trials are left as they are
        }
        List<Integer> toRead = index == null ? running() : List.of(index);
        for (int each : toRead) {
          if (!poll(each)) {
            startWaiter(each);
          }
        }
        if (earlyStopping.isPresent() && System.nanoTime() - lastEarlyStopCheck
            >= EARLY_STOP_CHECK.toNanos()) {
          lastEarlyStopCheck = System.nanoTime();
          for (int each : running()) {
            checkEarlyStop(each, earlyStopping.get());
          }
        }
      }
    } finally {
      stopWaiters();
    }
  }

  /** Waits for trial {@code index}'s job to end on a thread of its own, then tells the loop. */
  private void startWaiter(int index) {
    TrainingJob job;
    synchronized (this) {
      job = trials.get(index).job().orElseThrow();
      if (waiters.containsKey(index)) {
        return; // still waiting: the safety net's read found it running
      }
    }
    Thread waiter = owner.thread("fairing4j-trial-" + job.name(), () -> {
      try {
        job.waitForCompletion(Duration.ofDays(3650));
      } catch (JobFailedException failed) {
        // The loop reads why from the job's status.
      } catch (RuntimeException e) {
        if (Thread.currentThread().isInterrupted() || isClosed()) {
          return;
        }
        LOG.debug("experiment {}: waiting for {} failed, reading it again: {}", name,
            job.name(), e.getMessage());
        try {
          Thread.sleep(RETRY.toMillis());
        } catch (InterruptedException interrupted) {
          return;
        }
      }
      synchronized (this) {
        waiters.remove(index);
      }
      ended.add(index);
    });
    synchronized (this) {
      waiters.put(index, waiter);
    }
    waiter.start();
  }

  private void stopWaiters() {
    List<Thread> threads;
    synchronized (this) {
      threads = new ArrayList<>(waiters.values());
      waiters.clear();
    }
    threads.forEach(Thread::interrupt);
    for (Thread thread : threads) {
      try {
        thread.join(Duration.ofSeconds(10).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private synchronized int firstUnsubmitted() {
    int next = 0;
    while (next < trials.size() && trials.get(next).job().isPresent()) {
      next++;
    }
    return next;
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
      if (built == null) {
        built = build.get();
      }
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
    startWaiter(index);
  }

  /** Reads trial {@code index}; true when it has ended (and is recorded so). */
  private boolean poll(int index) {
    Trial trial;
    synchronized (this) {
      trial = trials.get(index);
    }
    if (trial.status() != TrialStatus.RUNNING) {
      return true;
    }
    TrainingJob job = trial.job().orElseThrow();
    JobStatus status;
    try {
      status = job.status();
      failedReads[index] = 0;
    } catch (RuntimeException e) {
      if (isClosed() || Thread.currentThread().isInterrupted()) {
        return false; // close() interrupted the read: neither a failure nor worth a warning
      }
      // A lost connection or a restarting API server: read again, a few times.
      if (++failedReads[index] < READ_ATTEMPTS) {
        LOG.warn("experiment {}: reading trial {}'s status failed, retrying: {}", name,
            trial.number(), e.getMessage());
        return false;
      }
      Trial unreadable = trial.ended(TrialStatus.FAILED, Optional.empty(),
          Duration.ofNanos(System.nanoTime() - submittedAt[index]), Optional.of(
              "its status could not be read " + READ_ATTEMPTS + " times: " + e.getMessage()));
      record(index, unreadable);
      return true;
    }
    if (!status.isTerminal()) {
      return false;
    }
    Duration took = status.startTime().flatMap(start -> status.completionTime()
        .map(end -> Duration.between(start, end)))
        .orElseGet(() -> Duration.ofNanos(System.nanoTime() - submittedAt[index]));
    Trial ended = status.phase() == JobPhase.SUCCEEDED ? succeeded(trial, job, took)
        : trial.ended(TrialStatus.FAILED, Optional.empty(), took, Optional.of(whyFailed(status,
            job)));
    if (isClosed() || Thread.currentThread().isInterrupted()) {
      // close() interrupted the reads: what they gave (no logs, say) is not the trial's result.
      return false;
    }
    LOG.info("experiment {}: trial {} of {} ({}) {}{} in {}", name, ended.number(),
        trials.size(), ended.describeParameters(), ended.status(), ended.objective()
            .map(v -> ": " + objective.metric() + "=" + TrialPlan.render(v))
            .orElse(ended.message().map(m -> ": " + m).orElse("")), Durations.human(took));
    record(index, ended);
    return true;
  }

  private synchronized void record(int index, Trial ended) {
    trials.set(index, ended);
    ended.objective().filter(objective::reached).ifPresent(v -> stop("goal reached: trial "
        + ended.number() + " " + objective.metric() + "=" + TrialPlan.render(v), false));
    long failed = trials.stream().filter(t -> t.status().isFailure()).count();
    maxFailedTrials.filter(max -> failed > max).ifPresent(max -> stop(failed + " trials"
        + " failed, more than maxFailedTrials=" + max, true));
  }

  /**
   * The recorded objectives read as the optimized one is: through the metrics collector's
   * filters, from the trial job's log.
   */
  @Override
  public Map<String, Double> metrics(Trial trial, List<Objective> objectives) {
    Map<String, Double> values = new java.util.LinkedHashMap<>();
    trial.objective().ifPresent(v -> values.put(objectives.get(0).metric(), v));
    Optional<TrainingJob> job = trial.job();
    if (job.isPresent() && trial.status().isFinished()) {
      for (Objective recorded : objectives.subList(1, objectives.size())) {
        try {
          recorded.strategy().of(TrialReading.of(job.get(), recorded.metric(), collector)
              .series()).ifPresent(v -> values.put(recorded.metric(), v));
        } catch (RuntimeException e) {
          // its logs could not be read: the value is missing, as it is for the objective
        }
      }
    }
    return values;
  }

  private Trial succeeded(Trial trial, TrainingJob job, Duration took) {
    TrialReading reading;
    try {
      reading = TrialReading.of(job, objective.metric(), collector);
    } catch (RuntimeException e) {
      return trial.ended(TrialStatus.METRICS_UNAVAILABLE, Optional.empty(), took,
          Optional.of("its logs could not be read: " + e.getMessage()));
    }
    List<MetricPoint> series = reading.series();
    Optional<Double> value = objective.strategy().of(series);
    if (value.isPresent()) {
      averages.put(trial.number() - 1, series.stream().mapToDouble(MetricPoint::value)
          .average().orElseThrow());
      return trial.ended(TrialStatus.SUCCEEDED, value, took, Optional.empty());
    }
    return trial.ended(TrialStatus.METRICS_UNAVAILABLE, Optional.empty(), took,
        Optional.of("the job succeeded but " + reading.whyNoValue()));
  }

  /**
   * Katib's median rule: once enough trials have succeeded, a running trial that has reported
   * {@code startStep} values and whose latest is worse than the median of the succeeded trials'
   * averages is stopped: recorded as stopped early first, then its job deleted.
   */
  private void checkEarlyStop(int index, EarlyStopping rule) {
    if (averages.size() < rule.minTrials()) {
      return;
    }
    Trial trial;
    synchronized (this) {
      trial = trials.get(index);
    }
    TrainingJob job = trial.job().orElseThrow();
    List<MetricPoint> series;
    try {
      series = TrialReading.of(job, objective.metric(), collector).series();
    } catch (RuntimeException e) {
      LOG.debug("experiment {}: no metrics of {} yet: {}", name, job.name(), e.getMessage());
      return;
    }
    if (series.size() < rule.startStep()) {
      return;
    }
    double median = median(averages.values().stream().toList());
    double latest = series.get(series.size() - 1).value();
    if (!objective.direction().better(median, latest)) {
      return;
    }
    String why = "stopped early: " + objective.metric() + "=" + TrialPlan.render(latest)
        + " after " + series.size() + " values, worse than the median " + TrialPlan.render(median)
        + " of " + averages.size() + " succeeded trials";
    Trial stopped = trial.ended(TrialStatus.EARLY_STOPPED, objective.strategy().of(series),
        Duration.ofNanos(System.nanoTime() - submittedAt[index]), Optional.of(why));
    record(index, stopped);
    LOG.info("experiment {}: trial {} of {} ({}) {}", name, stopped.number(), trials.size(),
        stopped.describeParameters(), why);
    try {
      job.delete();
    } catch (RuntimeException e) {
      LOG.warn("experiment {}: deleting {}, stopped early, failed: {}", name, job.name(),
          e.getMessage());
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
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
          + " failed or printed no value of " + objective.metric() + " the metrics collector"
          + " reads";
    } else {
      long early = trials.stream().filter(t -> t.status() == TrialStatus.EARLY_STOPPED)
          .count();
      phase = ExperimentPhase.SUCCEEDED;
      reason = "all " + (ran + early) + " trials ended, " + succeeded + " succeeded, "
          + (early > 0 ? early + " stopped early, " : "") + failed + " failed";
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

  @Override
  public synchronized ExperimentResults results() {
    return new ExperimentResults(name, objective, phase, phase.isFinished() ? reason
        : progress(), trials);
  }

  @Override
  public synchronized boolean isClosed() {
    return closed;
  }

  @Override
  public synchronized void close() {
    closed = true;
    notifyAll();
  }

  /** Deletes every trial's job (running ones are stopped); one that fails does not stop it. */
  @Override
  public void deleteCreated() {
    for (Trial trial : results().trials()) {
      if (trial.status() == TrialStatus.EARLY_STOPPED) {
        continue; // deleted when it was stopped
      }
      trial.job().ifPresent(job -> {
        try {
          job.delete();
        } catch (RuntimeException e) {
          LOG.warn("experiment {}: deleting {} failed: {}", name, job.name(), e.getMessage());
        }
      });
    }
  }
}

package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.CustomObjects;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows an experiment a controller on the cluster runs (Katib, Trainer's OptimizationJob) by
 * reading what it reports every few seconds, until it reports an end or {@link #close()}. A read
 * that fails is logged and retried: the controller goes on without this JVM.
 */
abstract class PollingFollower implements Following {
  private static final Logger LOG = LoggerFactory.getLogger(PollingFollower.class);
  private static final Duration POLL = Duration.ofSeconds(3);
  // A controller that runs writes a condition within seconds of the create.
  private static final Duration UNACKNOWLEDGED = Duration.ofSeconds(60);

  private final String name;
  private final String controller;
  private final Function<String, Optional<TrainingJob>> jobs;
  // Read by the follower's thread only; concurrent so that no lock is held across a request.
  private final Map<String, TrainingJob> attached = new ConcurrentHashMap<>();
  private ExperimentResults results;
  private boolean closed;

  /**
   * Follows experiment {@code name}, run by {@code controller} (for messages), whose trials'
   * jobs {@code jobs} finds by name.
   */
  PollingFollower(String name, Objective objective, String controller,
      Function<String, Optional<TrainingJob>> jobs) {
    this.name = name;
    this.controller = controller;
    this.jobs = jobs;
    this.results = new ExperimentResults(name, objective, ExperimentPhase.RUNNING,
        "submitted to " + controller, List.of());
  }

  @Override
  public final String name() {
    return name;
  }

  /** The experiment as the controller reports it now; {@code last} is the previous read. */
  abstract ExperimentResults read(ExperimentResults last);

  @Override
  public final void run() {
    while (!isClosed()) {
      ExperimentResults read;
      try {
        read = read(results());
      } catch (RuntimeException e) {
        LOG.warn("experiment {}: reading {}'s status failed, retrying: {}", name, controller,
            e.getMessage());
        read = null;
      }
      synchronized (this) {
        if (read != null) {
          results = read;
          notifyAll();
          if (read.phase().isFinished()) {
            LOG.info("experiment {}: {} ({})", name, read.phase(), read.reason());
            return;
          }
        }
        try {
          wait(POLL.toMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  @Override
  public final synchronized ExperimentResults results() {
    return results;
  }

  @Override
  public final synchronized boolean isClosed() {
    return closed;
  }

  @Override
  public final synchronized void close() {
    closed = true;
    notifyAll();
  }

  /**
   * Where the trials stand, the reason of a running experiment: {@code 2 of 6 trials ended, 2
   * running (Katib)}; for an {@code object} on which no controller has written a condition a
   * minute after it was created, the likely cause instead, as the controller would have.
   */
  final String progress(Map<String, Object> object, List<Trial> trials,
      Optional<Integer> total) {
    Optional<Instant> created = JsonTree.instant(object, "metadata", "creationTimestamp");
    if (conditions(object).isEmpty() && created.isPresent()
        && Duration.between(created.get(), Instant.now()).compareTo(UNACKNOWLEDGED) > 0) {
      return "no " + controller + " controller has taken it up: it has no status "
          + Duration.between(created.get(), Instant.now()).toSeconds() + " s after it was"
          + " created; check that " + controller + "'s controller runs and handles "
          + object.get("kind") + "s ('kubectl get pods -A | grep -i "
          + controller.toLowerCase(Locale.ROOT) + "')";
    }
    return trials.stream().filter(t -> t.status().isFinished()).count() + " of "
        + total.map(String::valueOf).orElse("?") + " trials ended, " + trials.stream()
            .filter(t -> t.status() == TrialStatus.RUNNING).count() + " running ("
        + controller + ")";
  }

  /** A trial's job by its name, attached once (its handle keeps its own connection state). */
  final Optional<TrainingJob> job(String jobName) {
    TrainingJob known = attached.get(jobName);
    if (known != null) {
      return Optional.of(known);
    }
    Optional<TrainingJob> found = jobs.apply(jobName);
    found.ifPresent(job -> attached.put(jobName, job));
    return found;
  }

  /** Deletes {@code created} (objects as rendered) from {@code namespace}. */
  static void deleteAll(CustomObjects objects, String namespace,
      List<Map<String, Object>> created) {
    for (Map<String, Object> object : created) {
      objects.delete(String.valueOf(object.get("apiVersion")), String.valueOf(
          object.get("kind")), namespace, JsonTree.text(object, "metadata", "name").orElseThrow());
    }
  }

  /** An object's {@code status.conditions}. */
  static List<Map<String, Object>> conditions(Map<String, Object> object) {
    return JsonTree.maps(object, "status", "conditions");
  }

  /** A condition as its reason and message: {@code MaxTrialsReached: ..}. */
  static String describe(Map<String, Object> condition) {
    Object message = condition.get("message");
    return condition.get("reason") + (message == null || String.valueOf(message).isBlank() ? ""
        : ": " + message);
  }
}

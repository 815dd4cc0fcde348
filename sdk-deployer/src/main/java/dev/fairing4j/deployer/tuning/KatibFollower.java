package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.internal.CustomObjects;
import dev.fairing4j.deployer.internal.JsonTree;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows an experiment Katib runs: reads the {@code Experiment}'s conditions and its
 * {@code Trial}s (labelled {@code katib.kubeflow.org/experiment}) every few seconds, and shows
 * them as the SDK's own trials: parameters from {@code parameterAssignments}, status from the
 * trial's conditions, the objective from {@code observation.metrics} by the objective's strategy,
 * the job by the trial's name.
 */
final class KatibFollower implements Following {
  private static final Logger LOG = LoggerFactory.getLogger(KatibFollower.class);
  /** The label Katib puts on an experiment's trials. */
  static final String EXPERIMENT_LABEL = "katib.kubeflow.org/experiment";
  private static final Duration POLL = Duration.ofSeconds(3);

  private final String name;
  private final String namespace;
  private final Objective objective;
  private final CustomObjects objects;
  private final Function<String, Optional<TrainingJob>> jobs;
  private final List<Map<String, Object>> shared;
  // Read by the follower's thread only; concurrent so that no lock is held across a request.
  private final Map<String, TrainingJob> attached = new ConcurrentHashMap<>();
  private ExperimentResults results;
  private boolean closed;

  KatibFollower(String name, String namespace, Objective objective, CustomObjects objects,
      Function<String, Optional<TrainingJob>> jobs, List<Map<String, Object>> shared) {
    this.name = name;
    this.namespace = namespace;
    this.objective = objective;
    this.objects = objects;
    this.jobs = jobs;
    this.shared = List.copyOf(shared);
    this.results = new ExperimentResults(name, objective, ExperimentPhase.RUNNING,
        "submitted to Katib", List.of());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void run() {
    while (!isClosed()) {
      ExperimentResults read;
      try {
        read = read();
      } catch (RuntimeException e) {
        LOG.warn("experiment {}: reading Katib's status failed, retrying: {}", name,
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

  /** The experiment as Katib reports it now. */
  ExperimentResults read() {
    Optional<Map<String, Object>> experiment = objects.get(KatibRendering.API_VERSION,
        "Experiment", namespace, name);
    if (experiment.isEmpty()) {
      return new ExperimentResults(name, objective, ExperimentPhase.FAILED, "the Experiment"
          + " was deleted", results.trials());
    }
    List<Map<String, Object>> found = new ArrayList<>(objects.list(KatibRendering.API_VERSION,
        "Trial", namespace, EXPERIMENT_LABEL + "=" + name));
    found.sort(Comparator.comparing((Map<String, Object> t) -> JsonTree.instant(t, "metadata",
        "creationTimestamp").orElse(Instant.EPOCH)).thenComparing(t -> JsonTree.text(t,
            "metadata", "name").orElse("")));
    List<Trial> trials = new ArrayList<>();
    for (Map<String, Object> trial : found) {
      trials.add(trial(trials.size() + 1, trial));
    }
    ExperimentPhase phase = ExperimentPhase.RUNNING;
    String reason = trials.stream().filter(t -> t.status().isFinished()).count() + " of "
        + JsonTree.integer(experiment.get(), "spec", "maxTrialCount").map(String::valueOf)
            .orElse("?") + " trials ended, " + trials.stream().filter(t -> t.status()
                == TrialStatus.RUNNING).count() + " running (Katib)";
    for (Map<String, Object> condition : conditions(experiment.get())) {
      String type = String.valueOf(condition.get("type"));
      if (!"True".equals(String.valueOf(condition.get("status")))) {
        continue;
      }
      if (type.equals("Succeeded") || type.equals("Failed")) {
        phase = type.equals("Succeeded") ? ExperimentPhase.SUCCEEDED : ExperimentPhase.FAILED;
        reason = describe(condition);
      }
    }
    return new ExperimentResults(name, objective, phase, reason, trials);
  }

  private Trial trial(int number, Map<String, Object> trial) {
    String trialName = JsonTree.text(trial, "metadata", "name").orElse("");
    Map<String, String> parameters = new TreeMap<>();
    for (Map<String, Object> assignment : JsonTree.maps(trial, "spec",
        "parameterAssignments")) {
      parameters.put(String.valueOf(assignment.get("name")),
          String.valueOf(assignment.get("value")));
    }
    TrialStatus status = TrialStatus.PENDING;
    Optional<String> message = Optional.empty();
    for (Map<String, Object> condition : conditions(trial)) {
      if (!"True".equals(String.valueOf(condition.get("status")))) {
        continue;
      }
      switch (String.valueOf(condition.get("type"))) {
        case "Running" -> status = TrialStatus.RUNNING;
        case "Succeeded" -> status = TrialStatus.SUCCEEDED;
        case "EarlyStopped" -> status = TrialStatus.EARLY_STOPPED;
        case "MetricsUnavailable" -> {
          status = TrialStatus.METRICS_UNAVAILABLE;
          message = Optional.of(describe(condition));
        }
        case "Failed", "Killed" -> {
          status = TrialStatus.FAILED;
          message = Optional.of(describe(condition));
        }
        default -> { }
      }
    }
    Optional<Double> value = status == TrialStatus.SUCCEEDED
        || status == TrialStatus.EARLY_STOPPED ? observed(trial) : Optional.empty();
    if (status == TrialStatus.SUCCEEDED && value.isEmpty()) {
      status = TrialStatus.METRICS_UNAVAILABLE;
      message = Optional.of("Katib observed no " + objective.metric());
    }
    Optional<Instant> start = JsonTree.instant(trial, "status", "startTime");
    Optional<Duration> duration = start.flatMap(s -> JsonTree.instant(trial, "status",
        "completionTime").map(end -> Duration.between(s, end)));
    Optional<TrainingJob> job = status == TrialStatus.PENDING ? Optional.empty()
        : job(trialName);
    return new Trial(number, trialName, parameters, status, value, duration, message, job);
  }

  // The trial's job, attached once: Katib names it after the trial.
  private Optional<TrainingJob> job(String trialName) {
    TrainingJob known = attached.get(trialName);
    if (known != null) {
      return Optional.of(known);
    }
    Optional<TrainingJob> found = jobs.apply(trialName);
    found.ifPresent(job -> attached.put(trialName, job));
    return found;
  }

  private Optional<Double> observed(Map<String, Object> trial) {
    for (Map<String, Object> metric : JsonTree.maps(trial, "status", "observation",
        "metrics")) {
      if (!objective.metric().equals(String.valueOf(metric.get("name")))) {
        continue;
      }
      String field = switch (objective.strategy()) {
        case MAX -> "max";
        case MIN -> "min";
        case LATEST -> "latest";
      };
      try {
        return Optional.of(Double.parseDouble(String.valueOf(metric.get(field))));
      } catch (NumberFormatException e) {
        return Optional.empty(); // Katib writes "unavailable"
      }
    }
    return Optional.empty();
  }

  private static List<Map<String, Object>> conditions(Map<String, Object> object) {
    return JsonTree.maps(object, "status", "conditions");
  }

  private static String describe(Map<String, Object> condition) {
    Object message = condition.get("message");
    return condition.get("reason") + (message == null || String.valueOf(message).isBlank() ? ""
        : ": " + message);
  }

  @Override
  public synchronized ExperimentResults results() {
    return results;
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

  /** Deletes the Experiment (Katib's trials and their jobs go with it) and its shared Secret. */
  @Override
  public void deleteCreated() {
    objects.delete(KatibRendering.API_VERSION, "Experiment", namespace, name);
    for (Map<String, Object> object : shared) {
      objects.delete(String.valueOf(object.get("apiVersion")), String.valueOf(
          object.get("kind")), namespace, JsonTree.text(object, "metadata", "name").orElseThrow());
    }
  }
}

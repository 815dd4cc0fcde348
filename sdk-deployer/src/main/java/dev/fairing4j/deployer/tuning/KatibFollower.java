package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.CustomObjects;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Follows an experiment Katib runs: reads the {@code Experiment}'s conditions and its
 * {@code Trial}s (labelled {@code katib.kubeflow.org/experiment}) every few seconds, and shows
 * them as the SDK's own trials: parameters from {@code parameterAssignments}, status from the
 * trial's conditions, the objective from {@code observation.metrics} by the objective's strategy,
 * the job by the trial's name.
 */
final class KatibFollower extends PollingFollower {
  /** The label Katib puts on an experiment's trials. */
  static final String EXPERIMENT_LABEL = "katib.kubeflow.org/experiment";

  private final String name;
  private final String namespace;
  private final Objective objective;
  private final CustomObjects objects;
  private final List<Map<String, Object>> shared;

  KatibFollower(String name, String namespace, Objective objective, CustomObjects objects,
      Function<String, Optional<TrainingJob>> jobs, List<Map<String, Object>> shared) {
    super(name, objective, "Katib", jobs);
    this.name = name;
    this.namespace = namespace;
    this.objective = objective;
    this.objects = objects;
    this.shared = List.copyOf(shared);
  }

  /** The experiment as Katib reports it now. */
  @Override
  ExperimentResults read(ExperimentResults last) {
    Optional<Map<String, Object>> experiment = objects.get(KatibRendering.API_VERSION,
        "Experiment", namespace, name);
    if (experiment.isEmpty()) {
      return new ExperimentResults(name, objective, ExperimentPhase.FAILED, "the Experiment"
          + " was deleted", last.trials(), last.reportedBest());
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
    String reason = progress(experiment.get(), trials, JsonTree.integer(experiment.get(),
        "spec", "maxTrialCount"));
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
    return new ExperimentResults(name, objective, phase, reason, trials,
        JsonTree.text(experiment.get(), "status", "currentOptimalTrial", "bestTrialName")
            .filter(best -> !best.isBlank()));
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

  private Optional<Double> observed(Map<String, Object> trial) {
    return observed(trial, objective);
  }

  /**
   * What Katib observed of each objective for {@code trial} ({@code status.observation}: the
   * objective metric and the additional ones), by each one's strategy.
   */
  @Override
  public Map<String, Double> metrics(Trial trial, List<Objective> objectives) {
    Map<String, Double> values = new java.util.LinkedHashMap<>();
    Optional<Map<String, Object>> found = objects.get(KatibRendering.API_VERSION, "Trial",
        namespace, trial.name());
    for (Objective one : objectives) {
      found.flatMap(t -> observed(t, one)).ifPresent(v -> values.put(one.metric(), v));
    }
    return values;
  }

  private static Optional<Double> observed(Map<String, Object> trial, Objective objective) {
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

  /** Deletes the Experiment (Katib's trials and their jobs go with it) and its shared Secret. */
  @Override
  public void deleteCreated() {
    objects.delete(KatibRendering.API_VERSION, "Experiment", namespace, name);
    deleteAll(objects, namespace, shared);
  }
}

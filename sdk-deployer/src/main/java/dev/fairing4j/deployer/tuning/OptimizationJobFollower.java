package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.CustomObjects;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Follows an experiment Kubeflow Trainer runs as an {@code OptimizationJob}: reads its conditions
 * and result and the TrainJobs it created every few seconds, and shows them as the SDK's own
 * trials. The Trainer's trials are the TrainJobs that carry the template's
 * {@code fairing4j.dev/experiment} label; each one's values are the
 * {@code KUBEFLOW_TRAINER_OPT_<NAME>} variables the Trainer put in its trainer's environment, its
 * status its {@code Complete}/{@code Failed} conditions, and its objective the value the script
 * last reported in {@code status.trainerStatus.metrics}: the metrics the Trainer itself ranks
 * trials by (pushed through the TrainJobStatus API, not read from the log).
 */
final class OptimizationJobFollower extends PollingFollower {
  private static final String KIND = "OptimizationJob";

  private final String name;
  private final String namespace;
  private final Objective objective;
  private final CustomObjects objects;
  private final Map<String, String> parameterOf;
  private final List<Map<String, Object>> shared;

  OptimizationJobFollower(String name, String namespace, Objective objective,
      Set<String> parameters, CustomObjects objects,
      Function<String, Optional<TrainingJob>> jobs, List<Map<String, Object>> shared) {
    super(name, objective, "Trainer", jobs);
    this.name = name;
    this.namespace = namespace;
    this.objective = objective;
    this.objects = objects;
    Map<String, String> byVariable = new LinkedHashMap<>();
    parameters.forEach(p -> byVariable.put(OptimizationJobRendering.variable(p), p));
    this.parameterOf = Map.copyOf(byVariable);
    this.shared = List.copyOf(shared);
  }

  /** The experiment as the Trainer reports it now. */
  @Override
  ExperimentResults read(ExperimentResults last) {
    Optional<Map<String, Object>> job = objects.get(OptimizationJobRendering.API_VERSION, KIND,
        namespace, name);
    if (job.isEmpty()) {
      return new ExperimentResults(name, objective, ExperimentPhase.FAILED, "the OptimizationJob"
          + " was deleted", last.trials(), last.reportedBest());
    }
    List<Trial> trials = new ArrayList<>();
    for (Map<String, Object> trainJob : trainJobs(job.get())) {
      trials.add(trial(trials.size() + 1, trainJob));
    }
    ExperimentPhase phase = ExperimentPhase.RUNNING;
    String reason = progress(job.get(), trials, JsonTree.integer(job.get(), "spec",
        "numTrials"));
    for (Map<String, Object> condition : conditions(job.get())) {
      String type = String.valueOf(condition.get("type"));
      boolean holds = "True".equals(String.valueOf(condition.get("status")));
      if (holds && (type.equals("Complete") || type.equals("Failed"))) {
        phase = type.equals("Complete") ? ExperimentPhase.SUCCEEDED : ExperimentPhase.FAILED;
        reason = describe(condition);
      } else if (!holds && type.equals("Created")) {
        // The Trainer retries these (its suggestion service, its TrainJobs): still running.
        reason = "not created yet: " + describe(condition);
      }
    }
    if (phase == ExperimentPhase.SUCCEEDED && !trials.isEmpty()
        && trials.stream().noneMatch(t -> t.status() == TrialStatus.SUCCEEDED)) {
      // As a search from this JVM fails when no trial printed the metric: nothing to keep.
      phase = ExperimentPhase.FAILED;
      reason = "no trial reported " + objective.metric() + " to the Trainer (the script sends"
          + " it to KUBEFLOW_TRAINER_SERVER_URL; see each trial's message); the Trainer said "
          + reason;
    }
    return new ExperimentResults(name, objective, phase, reason, trials, JsonTree.text(job.get(),
        "status", "result", "trainJobName").filter(best -> !best.isBlank()));
  }

  /**
   * The OptimizationJob's TrainJobs, in the order they were created: those with the template's
   * label (the template's metadata is each TrainJob's), less any another OptimizationJob of this
   * name owns (one deleted before, its TrainJobs not yet collected).
   */
  private List<Map<String, Object>> trainJobs(Map<String, Object> job) {
    String uid = JsonTree.text(job, "metadata", "uid").orElse("");
    List<Map<String, Object>> found = new ArrayList<>();
    // Without the trial number the SDK's own trials of an experiment of this name carry.
    for (Map<String, Object> trainJob : objects.list(OptimizationJobRendering.API_VERSION,
        "TrainJob", namespace, Experiment.EXPERIMENT_LABEL + "=" + name + ",!"
            + Experiment.TRIAL_LABEL)) {
      boolean ownedByAnother = JsonTree.maps(trainJob, "metadata", "ownerReferences").stream()
          .anyMatch(owner -> KIND.equals(owner.get("kind"))
              && !uid.equals(String.valueOf(owner.get("uid"))));
      if (!ownedByAnother) {
        found.add(trainJob);
      }
    }
    found.sort(Comparator.comparing((Map<String, Object> t) -> JsonTree.instant(t, "metadata",
        "creationTimestamp").orElse(Instant.EPOCH)).thenComparing(t -> JsonTree.text(t,
            "metadata", "name").orElse("")));
    return found;
  }

  private Trial trial(int number, Map<String, Object> trainJob) {
    String jobName = JsonTree.text(trainJob, "metadata", "name").orElse("");
    Map<String, String> parameters = new TreeMap<>();
    for (Map<String, Object> env : JsonTree.maps(trainJob, "spec", "trainer", "env")) {
      String variable = String.valueOf(env.get("name"));
      if (variable.startsWith(OptimizationJobRendering.ENV_PREFIX) && env.get("value") != null) {
        parameters.put(parameterOf.getOrDefault(variable, variable.substring(
            OptimizationJobRendering.ENV_PREFIX.length()).toLowerCase(Locale.ROOT)),
            String.valueOf(env.get("value")));
      }
    }
    TrialStatus status = TrialStatus.RUNNING;
    Optional<String> message = Optional.empty();
    Optional<Instant> ended = Optional.empty();
    for (Map<String, Object> condition : conditions(trainJob)) {
      if (!"True".equals(String.valueOf(condition.get("status")))) {
        continue;
      }
      switch (String.valueOf(condition.get("type"))) {
        case "Complete" -> {
          status = TrialStatus.SUCCEEDED;
          ended = JsonTree.instant(condition, "lastTransitionTime");
        }
        case "Failed" -> {
          status = TrialStatus.FAILED;
          message = Optional.of(describe(condition));
          ended = JsonTree.instant(condition, "lastTransitionTime");
        }
        case "Suspended" -> status = TrialStatus.PENDING;
        default -> { }
      }
    }
    List<Map<String, Object>> reported = JsonTree.maps(trainJob, "status", "trainerStatus",
        "metrics");
    Optional<Double> value = Optional.empty();
    if (status == TrialStatus.SUCCEEDED) {
      value = reported.stream().filter(m -> objective.metric().equals(String.valueOf(
          m.get("name")))).findFirst().flatMap(m -> number(String.valueOf(m.get("value"))));
      if (value.isEmpty()) {
        status = TrialStatus.METRICS_UNAVAILABLE;
        message = Optional.of("the TrainJob reported no numeric " + objective.metric()
            + " in status.trainerStatus.metrics (it reported " + reported.stream()
                .map(m -> String.valueOf(m.get("name"))).toList() + "): the Trainer ranks"
            + " trials by what the script sends to KUBEFLOW_TRAINER_SERVER_URL (the"
            + " TrainJobStatus feature gate), not by its log");
      }
    }
    Optional<Instant> created = JsonTree.instant(trainJob, "metadata", "creationTimestamp");
    Optional<Instant> end = ended;
    Optional<Duration> duration = created.flatMap(start -> end.map(at -> Duration.between(
        start, at)));
    Optional<TrainingJob> handle = status == TrialStatus.PENDING ? Optional.empty()
        : job(jobName);
    return new Trial(number, jobName, parameters, status, value, duration, message, handle);
  }

  private static Optional<Double> number(String text) {
    try {
      return Optional.of(Double.parseDouble(text));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * Deletes the OptimizationJob, its TrainJobs (also where no garbage collector follows owner
   * references) and the Secret they share.
   */
  @Override
  public void deleteCreated() {
    Optional<Map<String, Object>> job = objects.get(OptimizationJobRendering.API_VERSION, KIND,
        namespace, name);
    List<Map<String, Object>> trainJobs = job.map(this::trainJobs).orElse(List.of());
    objects.delete(OptimizationJobRendering.API_VERSION, KIND, namespace, name);
    for (Map<String, Object> trainJob : trainJobs) {
      objects.delete(OptimizationJobRendering.API_VERSION, "TrainJob", namespace,
          JsonTree.text(trainJob, "metadata", "name").orElseThrow());
    }
    deleteAll(objects, namespace, shared);
  }
}

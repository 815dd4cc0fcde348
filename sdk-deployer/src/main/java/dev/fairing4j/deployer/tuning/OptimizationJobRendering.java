package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.PullSecret;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * Renders an experiment as Kubeflow Trainer's {@code OptimizationJob}
 * ({@code trainer.kubeflow.org/v1alpha1}, newer than Trainer v2.3): objectives, search
 * algorithm, parameters, trial counts and the TrainJob every trial runs. The Trainer gives each
 * trial its values as {@code KUBEFLOW_TRAINER_OPT_<NAME>} in the trainer's environment; in the
 * ARGS style the template passes them to the script as arguments
 * ({@code --lr=$(KUBEFLOW_TRAINER_OPT_LR)}, which the kubelet expands), in the TRAINER_ENV
 * style the script reads them. What the CRD cannot say (a goal, a failed-trial budget, Katib's
 * algorithms) is refused rather than dropped.
 */
final class OptimizationJobRendering {
  /** The Trainer's API version. */
  static final String API_VERSION = "trainer.kubeflow.org/v1alpha1";
  /** The prefix of the variables that carry a trial's values. */
  static final String ENV_PREFIX = ParameterStyle.TRAINER_PREFIX;
  // The CRD's bounds.
  private static final int MAX_TRIALS = 100;

  private OptimizationJobRendering() {}

  /** The name the TrainJob is rendered under before it becomes the template. */
  static String placeholderName(String experiment) {
    return experiment + "-xtrialx1";
  }

  /** What the script receives as {@code --<name>=..}: the variable the Trainer sets. */
  static Map<String, String> placeholders(SortedMap<String, Parameter> space) {
    Map<String, String> values = new LinkedHashMap<>();
    space.keySet().forEach(name -> values.put(name, "$(" + variable(name) + ")"));
    return values;
  }

  /** The variable a value is in: {@code batch-size}'s in KUBEFLOW_TRAINER_OPT_BATCH_SIZE. */
  static String variable(String parameter) {
    return ENV_PREFIX + ParameterStyle.variable(parameter);
  }

  /** Refuses what an OptimizationJob cannot express, naming the setting. */
  static void check(Objective objective, Algorithm algorithm, int maxTrials,
      Optional<Integer> maxFailedTrials, ParameterStyle style) {
    if (objective.goal().isPresent()) {
      throw refusal("objective goal", "an OptimizationJob has no goal",
          "drop .goal(..), or use backend KATIB or CLIENT");
    }
    if (maxFailedTrials.isPresent()) {
      throw refusal("maxFailedTrials", "an OptimizationJob has no failed-trial budget",
          "drop .maxFailedTrials(..), or use backend KATIB or CLIENT");
    }
    if (algorithm instanceof Algorithm.Katib katib) {
      throw refusal("algorithm", "an OptimizationJob searches randomly or on a grid, not with"
          + " Katib's '" + katib.name() + "'", "use Algorithm.random(seed) or grid(), or"
          + " backend KATIB");
    }
    if (maxTrials > MAX_TRIALS) {
      throw refusal("maxTrials", maxTrials + " is above an OptimizationJob's " + MAX_TRIALS,
          "use at most 100, or backend KATIB or CLIENT");
    }
    if (style == ParameterStyle.ENV) {
      throw refusal("parameterStyle", "under an OptimizationJob the Trainer sets each"
          + " parameter as " + ENV_PREFIX + "<NAME>, not <NAME>", "use"
          + " ParameterStyle.TRAINER_ENV (the script reads " + ENV_PREFIX + "LR, on every"
          + " backend) or ParameterStyle.ARGS (--lr=$(" + ENV_PREFIX + "LR))");
    }
  }

  private static InvalidInputException refusal(String field, String problem, String fix) {
    return InvalidInputException.of(field, problem, fix);
  }

  /**
   * The OptimizationJob and the objects its trials share (an image-pull Secret), from the
   * objects the pipeline renders for the placeholder TrainJob.
   */
  static List<Map<String, Object>> render(String name, Objective objective, Algorithm algorithm,
      SortedMap<String, Parameter> space, int maxTrials, int parallel,
      List<Map<String, Object>> trialObjects) {
    String placeholder = placeholderName(name);
    List<Map<String, Object>> shared = new ArrayList<>();
    Map<String, Object> trainJob = null;
    for (Map<String, Object> object : trialObjects) {
      String kind = String.valueOf(object.get("kind"));
      if (kind.equals("Secret")) {
        shared.add(KatibRendering.replaced(KatibRendering.replaced(object,
            PullSecret.name(placeholder), PullSecret.name(name)), placeholder, name));
      } else if (kind.equals("TrainJob") && trainJob == null) {
        trainJob = object;
      } else {
        throw refusal("experiment", "an OptimizationJob runs TrainJobs, and this pipeline"
            + " renders a " + kind, "use .deployer(Deployers.trainJob(..)), or backend KATIB or"
            + " CLIENT");
      }
    }
    if (trainJob == null) {
      throw refusal("experiment", "an OptimizationJob runs TrainJobs, and this pipeline"
          + " renders none", "use .deployer(Deployers.trainJob(..))");
    }
    Map<String, Object> job = KatibRendering.replaced(KatibRendering.replaced(trainJob,
        PullSecret.name(placeholder), PullSecret.name(name)), placeholder, name);
    @SuppressWarnings("unchecked")
    Map<String, Object> jobMetadata = (Map<String, Object>) job.get("metadata");
    String namespace = String.valueOf(jobMetadata.get("namespace"));
    Map<String, Object> templateMetadata = new LinkedHashMap<>();
    for (String key : List.of("labels", "annotations")) {
      if (jobMetadata.get(key) != null) {
        templateMetadata.put(key, jobMetadata.get(key));
      }
    }
    Map<String, Object> template = new LinkedHashMap<>();
    if (!templateMetadata.isEmpty()) {
      template.put("metadata", templateMetadata);
    }
    template.put("spec", job.get("spec"));

    Map<String, Object> optimization = new LinkedHashMap<>();
    optimization.put("apiVersion", API_VERSION);
    optimization.put("kind", "OptimizationJob");
    optimization.put("metadata", KatibRendering.metadata(name, namespace));
    Map<String, Object> spec = new LinkedHashMap<>();
    Map<String, Object> target = new LinkedHashMap<>();
    target.put("metric", objective.metric());
    target.put("direction", objective.direction() == Objective.Direction.MAXIMIZE ? "Maximize"
        : "Minimize");
    spec.put("objectives", List.of(target));
    spec.put("searchAlgorithm", algorithm instanceof Algorithm.Random random
        ? Map.of("random", Map.of("seed", random.seed())) : Map.of("grid", Map.of()));
    spec.put("parameters", parameters(space, algorithm));
    spec.put("numTrials", maxTrials);
    // The CRD refuses parallelTrials above numTrials; they mean the same at numTrials.
    spec.put("parallelTrials", Math.min(parallel, maxTrials));
    spec.put("trainJobTemplate", template);
    optimization.put("spec", spec);
    List<Map<String, Object>> objects = new ArrayList<>(shared);
    objects.add(optimization);
    return objects;
  }

  private static List<Map<String, Object>> parameters(SortedMap<String, Parameter> space,
      Algorithm algorithm) {
    List<Map<String, Object>> rendered = new ArrayList<>();
    space.forEach((name, parameter) -> {
      Map<String, Object> searchSpace;
      boolean grid = algorithm instanceof Algorithm.Grid;
      if (grid || parameter instanceof Parameter.Choice
          || parameter instanceof Parameter.IntRange r && r.step() != 1) {
        // The CRD's grid takes only choices: a stepped range is its points, as ours counts them;
        // random choice among a stepped range's points is the range drawn with its step.
        searchSpace = Map.of("categorical", Map.of("choices", TrialPlan.gridValues(name,
            parameter)));
      } else if (parameter instanceof Parameter.Uniform u) {
        searchSpace = Map.of("uniform", range(u.min(), u.max(), "Float"));
      } else if (parameter instanceof Parameter.LogUniform l) {
        searchSpace = Map.of("logUniform", range(l.min(), l.max(), "Float"));
      } else {
        Parameter.IntRange r = (Parameter.IntRange) parameter;
        searchSpace = Map.of("uniform", range(r.min(), r.max(), "Int"));
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", name);
      entry.put("searchSpace", searchSpace);
      rendered.add(entry);
    });
    return rendered;
  }

  private static Map<String, Object> range(double min, double max, String type) {
    Map<String, Object> range = new LinkedHashMap<>();
    range.put("min", type.equals("Int") ? String.valueOf((long) min) : TrialPlan.render(min));
    range.put("max", type.equals("Int") ? String.valueOf((long) max) : TrialPlan.render(max));
    range.put("type", type);
    return range;
  }
}

package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.batch.BatchJobDeployer;
import dev.fairing4j.deployer.job.internal.Metadata;
import dev.fairing4j.deployer.job.internal.PullSecret;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKinds;
import dev.fairing4j.deployer.trainer.TrainJobDeployer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Renders an experiment as Katib v0.19's {@code Experiment} ({@code kubeflow.org/v1beta1}): the
 * search space, objective, algorithm and counts, the metrics collector with its filters, and a
 * trial template that is the job the pipeline renders for one trial, with
 * {@code ${trialParameters.<name>}} where the parameter values go and
 * {@code ${trialParameters.trialName}} (Katib's {@code ${trialSpec.Name}}) where the job's name
 * goes. Checks what Katib's admission webhook checks, so a refusal comes before any network call.
 */
final class KatibRendering {
  /** Katib's API version for experiments. */
  static final String API_VERSION = "kubeflow.org/v1beta1";
  /** The trial parameter that carries the trial's (the job's) name. */
  static final String TRIAL_NAME = "trialName";

  // Katib's webhook: ^[a-z]([-a-z0-9]*[a-z0-9])? and at most 40 characters.
  private static final Pattern KATIB_NAME = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final int KATIB_NAME_MAX = 40;
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{trialParameters\\.(.+?)}");

  private static final String KUBEFLOW_SUCCEEDED =
      "status.conditions.#(type==\"Succeeded\")#|#(status==\"True\")#";
  private static final String COMPLETE =
      "status.conditions.#(type==\"Complete\")#|#(status==\"True\")#";
  private static final String FAILED =
      "status.conditions.#(type==\"Failed\")#|#(status==\"True\")#";

  private KatibRendering() {}

  /**
   * The name a trial job is rendered under before it becomes the template: as long as Katib's
   * trial names ({@code <experiment>-<8 characters>}), so the kind's name checks apply.
   */
  static String placeholderName(String experiment) {
    return experiment + "-xtrialx1";
  }

  /** The metadata of what an experiment hands to a controller: name, namespace, the SDK's label. */
  static Map<String, Object> metadata(String name, String namespace) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", name);
    metadata.put("namespace", namespace);
    metadata.put("labels", Map.of(Metadata.MANAGED_BY, Metadata.MANAGED_BY_VALUE));
    return metadata;
  }

  /** Refuses an experiment name Katib's webhook refuses. */
  static void checkName(String experiment) {
    if (experiment.length() > KATIB_NAME_MAX || !KATIB_NAME.matcher(experiment).matches()) {
      throw InvalidInputException.of("experiment name", "'" + experiment + "' is not a Katib"
          + " experiment name", "use at most 40 lower-case letters, digits and '-', starting"
          + " with a letter (Katib names its trials <experiment>-<8 characters>)");
    }
  }

  /** The trial parameters' values in {@code style}: what the template's job receives. */
  static Map<String, String> placeholders(SortedMap<String, Parameter> space) {
    Map<String, String> values = new LinkedHashMap<>();
    space.keySet().forEach(name -> values.put(name, "${trialParameters." + name + "}"));
    return values;
  }

  /**
   * The Experiment and the objects its trials share (an image-pull Secret), from the objects the
   * pipeline renders for the placeholder trial.
   */
  static List<Map<String, Object>> render(String name, Objective objective,
      List<Objective> recorded, Algorithm algorithm,
      SortedMap<String, Parameter> space, int maxTrials, int parallel,
      Optional<Integer> maxFailedTrials, Optional<EarlyStopping> earlyStopping,
      MetricsCollector collector, List<Map<String, Object>> trialObjects) {
    checkName(name);
    String placeholder = placeholderName(name);
    List<Map<String, Object>> shared = new ArrayList<>();
    Map<String, Object> trialSpec = null;
    for (Map<String, Object> object : trialObjects) {
      String kind = String.valueOf(object.get("kind"));
      if (kind.equals("Secret")) {
        shared.add(replaced(replaced(object, PullSecret.name(placeholder),
            PullSecret.name(name)), placeholder, name));
      } else if (trialSpec == null && primaryContainer(kind).isPresent()) {
        trialSpec = object;
      } else {
        throw InvalidInputException.of("experiment", "Katib creates one object per trial, and"
            + " this job also needs a " + kind, "run the experiment with the SDK's own trials"
            + " (the default backend), which create whatever the job needs");
      }
    }
    if (trialSpec == null) {
      throw InvalidInputException.of("experiment", "the pipeline renders no job Katib can run",
          "use Deployers.pyTorchJob, tfJob, xgboostJob, trainJob or batchJob");
    }
    String kind = String.valueOf(trialSpec.get("kind"));
    String namespace = String.valueOf(((Map<?, ?>) trialSpec.get("metadata")).get("namespace"));
    // The Secret's name first: it contains the placeholder, and is shared by every trial.
    Map<String, Object> template = replaced(replaced(trialSpec, PullSecret.name(placeholder),
        PullSecret.name(name)), placeholder, "${trialParameters." + TRIAL_NAME + "}");
    Map<String, Object> templateMetadata = new LinkedHashMap<>(map(template.get("metadata")));
    templateMetadata.remove("name");
    templateMetadata.remove("namespace");
    template.put("metadata", templateMetadata);

    Map<String, Object> experiment = new LinkedHashMap<>();
    experiment.put("apiVersion", API_VERSION);
    experiment.put("kind", "Experiment");
    experiment.put("metadata", metadata(name, namespace));
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("objective", objective(objective, recorded));
    spec.put("algorithm", algorithm(algorithm));
    // Katib refuses counts above maxTrialCount; they mean the same at maxTrialCount.
    spec.put("parallelTrialCount", Math.min(parallel, maxTrials));
    spec.put("maxTrialCount", maxTrials);
    maxFailedTrials.ifPresent(max -> spec.put("maxFailedTrialCount", Math.min(max, maxTrials)));
    spec.put("parameters", parameters(space, algorithm));
    earlyStopping.ifPresent(rule -> spec.put("earlyStopping", pair("algorithmName",
        "medianstop", "algorithmSettings", List.of(pair("name", "min_trials_required", "value",
            String.valueOf(rule.minTrials())), pair("name", "start_step", "value",
                String.valueOf(rule.startStep()))))));
    spec.put("metricsCollectorSpec", collector.render());
    spec.put("trialTemplate", trialTemplate(kind, space, template));
    experiment.put("spec", spec);
    checkPlaceholders(space, template);
    List<Map<String, Object>> objects = new ArrayList<>(shared);
    objects.add(experiment);
    return objects;
  }

  // The recorded objectives are Katib's additional metrics, each with its own strategy.
  private static Map<String, Object> objective(Objective objective, List<Objective> recorded) {
    Map<String, Object> rendered = new LinkedHashMap<>();
    rendered.put("type", objective.direction() == Objective.Direction.MAXIMIZE ? "maximize"
        : "minimize");
    objective.goal().ifPresent(goal -> rendered.put("goal", goal));
    rendered.put("objectiveMetricName", objective.metric());
    if (!recorded.isEmpty()) {
      rendered.put("additionalMetricNames", recorded.stream().map(Objective::metric).toList());
    }
    List<Map<String, Object>> strategies = new ArrayList<>();
    for (Objective one : concat(objective, recorded)) {
      strategies.add(pair("name", one.metric(), "value",
          one.strategy().name().toLowerCase(java.util.Locale.ROOT)));
    }
    rendered.put("metricStrategies", strategies);
    return rendered;
  }

  private static List<Objective> concat(Objective first, List<Objective> more) {
    List<Objective> all = new ArrayList<>(List.of(first));
    all.addAll(more);
    return all;
  }

  private static Map<String, Object> algorithm(Algorithm algorithm) {
    Map<String, Object> rendered = new LinkedHashMap<>();
    Map<String, String> settings = new TreeMap<>();
    if (algorithm instanceof Algorithm.Random random) {
      rendered.put("algorithmName", "random");
      settings.put("random_state", String.valueOf(random.seed()));
    } else if (algorithm instanceof Algorithm.Grid) {
      rendered.put("algorithmName", "grid");
    } else {
      Algorithm.Katib katib = (Algorithm.Katib) algorithm;
      rendered.put("algorithmName", katib.name());
      settings.putAll(katib.settings());
    }
    if (!settings.isEmpty()) {
      List<Map<String, Object>> list = new ArrayList<>();
      settings.forEach((key, value) -> list.add(pair("name", key, "value", value)));
      rendered.put("algorithmSettings", list);
    }
    return rendered;
  }

  private static List<Map<String, Object>> parameters(SortedMap<String, Parameter> space,
      Algorithm algorithm) {
    List<Map<String, Object>> rendered = new ArrayList<>();
    space.forEach((name, parameter) -> {
      Map<String, Object> feasible = new LinkedHashMap<>();
      String type;
      if (parameter instanceof Parameter.Uniform u) {
        type = "double";
        feasible.put("min", TrialPlan.render(u.min()));
        feasible.put("max", TrialPlan.render(u.max()));
        u.step().ifPresent(step -> feasible.put("step", TrialPlan.render(step)));
        if (algorithm instanceof Algorithm.Grid && u.step().isEmpty()) {
          throw InvalidInputException.of("searchSpace " + name, "Katib's grid needs the"
              + " range's step", "write Search.uniform(" + u.min() + ", " + u.max()
              + ").step(..)");
        }
        feasible.put("distribution", "uniform");
      } else if (parameter instanceof Parameter.LogUniform l) {
        type = "double";
        feasible.put("min", TrialPlan.render(l.min()));
        feasible.put("max", TrialPlan.render(l.max()));
        feasible.put("distribution", "logUniform");
      } else if (parameter instanceof Parameter.IntRange r) {
        type = "int";
        feasible.put("min", String.valueOf(r.min()));
        feasible.put("max", String.valueOf(r.max()));
        feasible.put("step", String.valueOf(r.step()));
        feasible.put("distribution", "uniform");
      } else {
        List<String> values = ((Parameter.Choice) parameter).values();
        type = values.stream().allMatch(KatibRendering::isNumber) ? "discrete" : "categorical";
        feasible.put("list", values);
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", name);
      entry.put("parameterType", type);
      entry.put("feasibleSpace", feasible);
      rendered.add(entry);
    });
    return rendered;
  }

  private static boolean isNumber(String value) {
    try {
      Double.parseDouble(value);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static Map<String, Object> trialTemplate(String kind,
      SortedMap<String, Parameter> space, Map<String, Object> template) {
    Map<String, Object> rendered = new LinkedHashMap<>();
    rendered.put("primaryContainerName", primaryContainer(kind).orElseThrow());
    // Katib's defaults for the kind, written out: the manifest says how a trial ends.
    if (kind.equals("Job")) {
      rendered.put("successCondition", COMPLETE);
      rendered.put("failureCondition", FAILED);
    } else if (kind.equals("TrainJob")) {
      rendered.put("successCondition", COMPLETE);
      rendered.put("failureCondition", FAILED);
      rendered.put("primaryPodLabels", pair("jobset.sigs.k8s.io/replicatedjob-name", "node",
          "batch.kubernetes.io/job-completion-index", "0"));
    } else {
      rendered.put("successCondition", KUBEFLOW_SUCCEEDED);
      rendered.put("failureCondition", FAILED);
      rendered.put("primaryPodLabels", Map.of("training.kubeflow.org/job-role", "master"));
    }
    List<Map<String, Object>> trialParameters = new ArrayList<>();
    space.keySet().forEach(name -> trialParameters.add(pair("name", name, "reference", name)));
    trialParameters.add(pair("name", TRIAL_NAME, "reference", "${trialSpec.Name}"));
    rendered.put("trialParameters", trialParameters);
    rendered.put("trialSpec", template);
    return rendered;
  }

  /**
   * The training container's name in a job of {@code kind}, which Katib collects from; the
   * operator's kinds say theirs (Katib's default trial resources include each of them).
   */
  static Optional<String> primaryContainer(String kind) {
    switch (kind) {
      case "TrainJob":
        return Optional.of(TrainJobDeployer.CONTAINER);
      case "Job":
        return Optional.of(BatchJobDeployer.CONTAINER);
      default:
        return TrainingKinds.named(kind).map(TrainingKind::containerName);
    }
  }

  // Katib's webhook: every trial parameter appears in the template, and nothing else does.
  private static void checkPlaceholders(SortedMap<String, Parameter> space,
      Map<String, Object> template) {
    String text = String.valueOf(template);
    List<String> expected = new ArrayList<>(space.keySet());
    expected.add(TRIAL_NAME);
    for (String name : expected) {
      if (!text.contains("${trialParameters." + name + "}")) {
        throw new IllegalStateException("the trial template lost ${trialParameters." + name
            + "}: " + text);
      }
    }
    var matcher = PLACEHOLDER.matcher(text);
    while (matcher.find()) {
      if (!expected.contains(matcher.group(1))) {
        throw InvalidInputException.of("experiment", "the job already contains "
            + matcher.group() + ", which Katib would replace", "remove it from the"
            + " deployer's arguments or environment");
      }
    }
  }

  /** A deep copy of {@code tree} with {@code from} replaced by {@code to} in every string. */
  @SuppressWarnings("unchecked")
  static <T> T replaced(T tree, String from, String to) {
    if (tree instanceof String text) {
      return (T) text.replace(from, to);
    }
    if (tree instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((key, value) -> copy.put(String.valueOf(key), replaced(value, from, to)));
      return (T) copy;
    }
    if (tree instanceof List<?> list) {
      List<Object> copy = new ArrayList<>();
      list.forEach(value -> copy.add(replaced(value, from, to)));
      return (T) copy;
    }
    return tree;
  }

  // Two entries in the order written, as a reader of the YAML expects them.
  private static Map<String, Object> pair(String key1, Object value1, String key2,
      Object value2) {
    Map<String, Object> pair = new LinkedHashMap<>();
    pair.put(key1, value1);
    pair.put(key2, value2);
    return pair;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> ? (Map<String, Object>) value : new LinkedHashMap<>();
  }
}

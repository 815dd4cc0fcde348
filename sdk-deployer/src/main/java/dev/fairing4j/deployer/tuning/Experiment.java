package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.BuiltPipeline;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobVariant;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.internal.Validators;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A hyperparameter search over the job a pipeline runs, as an immutable description: the search
 * space, the objective, the algorithm, how many trials, how many at once, how many may fail, and
 * how the parameters reach the script. {@link #run()} builds the pipeline's image once and runs
 * the trials as ordinary jobs of its deployer, on whatever cluster that deployer names (the local
 * cluster, podman, Kubernetes; no Katib needed), each named {@code <experiment>-<n>}:
 *
 * <pre>{@code
 * ExperimentRun search = Experiment.of("fmnist-tune", pipeline)
 *     .parameter("lr", Search.logUniform(0.001, 0.1))
 *     .parameter("momentum", Search.uniform(0.5, 0.9))
 *     .objective(Objective.maximize("accuracy"))
 *     .algorithm(Algorithm.random(42))
 *     .maxTrials(6).parallel(2)
 *     .run();
 * search.waitForCompletion(Duration.ofMinutes(30)).best();
 * }</pre>
 *
 * <p>Each fluent call returns a new experiment and checks its input at once. The defaults are the
 * Kubeflow SDK's: 10 trials, one at a time, no failed-trial budget, random search (seed 0),
 * parameters as arguments ({@code --lr=0.01}).
 */
public final class Experiment {
  /** The label every trial's objects carry: the experiment's name. */
  public static final String EXPERIMENT_LABEL = "fairing4j.dev/experiment";
  /** The label every trial's objects carry: the trial's number. */
  public static final String TRIAL_LABEL = "fairing4j.dev/trial";

  private final String name;
  private final Pipeline pipeline;
  private final TreeMap<String, Parameter> parameters;
  private final Optional<Objective> objective;
  private final Algorithm algorithm;
  private final int maxTrials;
  private final int parallel;
  private final Optional<Integer> maxFailedTrials;
  private final ParameterStyle style;

  private Experiment(String name, Pipeline pipeline, Map<String, Parameter> parameters,
      Optional<Objective> objective, Algorithm algorithm, int maxTrials, int parallel,
      Optional<Integer> maxFailedTrials, ParameterStyle style) {
    this.name = name;
    this.pipeline = pipeline;
    this.parameters = new TreeMap<>(parameters);
    this.objective = objective;
    this.algorithm = algorithm;
    this.maxTrials = maxTrials;
    this.parallel = parallel;
    this.maxFailedTrials = maxFailedTrials;
    this.style = style;
  }

  /**
   * An experiment called {@code name} (a DNS-1035 label: its trials are named
   * {@code <name>-<n>}) over the job {@code pipeline} runs. The pipeline's deployer's own name is
   * not used.
   */
  public static Experiment of(String name, Pipeline pipeline) {
    Validators.dns1035Label("experiment name", name);
    return new Experiment(name, Objects.requireNonNull(pipeline, "pipeline"), Map.of(),
        Optional.empty(), Algorithm.random(0), 10, 1, Optional.empty(), ParameterStyle.ARGS);
  }

  /** With one more parameter to vary (replacing one of that name). */
  public Experiment parameter(String parameterName, Parameter parameter) {
    Map<String, Parameter> more = new TreeMap<>(parameters);
    more.put(parameterName, Objects.requireNonNull(parameter, parameterName));
    SearchSpace.of(more); // checks the name now, in the cell that wrote it
    return new Experiment(name, pipeline, more, objective, algorithm, maxTrials, parallel,
        maxFailedTrials, style);
  }

  /** With these parameters to vary, replacing those given so far. */
  public Experiment searchSpace(Map<String, ? extends Parameter> space) {
    return new Experiment(name, pipeline, SearchSpace.of(space).parameters(), objective,
        algorithm, maxTrials, parallel, maxFailedTrials, style);
  }

  /** What to optimize: {@code Objective.maximize("accuracy")}. Required. */
  public Experiment objective(Objective value) {
    return new Experiment(name, pipeline, parameters, Optional.of(Objects.requireNonNull(value,
        "objective")), algorithm, maxTrials, parallel, maxFailedTrials, style);
  }

  /** How trials are proposed: {@code Algorithm.random(seed)} (the default, seed 0) or grid. */
  public Experiment algorithm(Algorithm value) {
    return new Experiment(name, pipeline, parameters, objective, Objects.requireNonNull(value,
        "algorithm"), maxTrials, parallel, maxFailedTrials, style);
  }

  /** How many trials at most (a grid runs fewer when it has fewer points); default 10. */
  public Experiment maxTrials(int value) {
    return new Experiment(name, pipeline, parameters, objective, algorithm,
        Validators.atLeast("maxTrials", value, 1), parallel, maxFailedTrials, style);
  }

  /** How many trials run at once; default 1. */
  public Experiment parallel(int value) {
    return new Experiment(name, pipeline, parameters, objective, algorithm, maxTrials,
        Validators.atLeast("parallel", value, 1), maxFailedTrials, style);
  }

  /**
   * How many trials may fail (or end without the metric) before the experiment stops and fails,
   * as Katib's {@code maxFailedTrialCount}: it fails when more than {@code value} have failed.
   * Without one, every trial runs whatever the failures.
   */
  public Experiment maxFailedTrials(int value) {
    return new Experiment(name, pipeline, parameters, objective, algorithm, maxTrials, parallel,
        Optional.of(Validators.atLeast("maxFailedTrials", value, 0)), style);
  }

  /** How parameters reach the script: {@code --lr=0.01} (the default) or {@code LR=0.01}. */
  public Experiment parameterStyle(ParameterStyle value) {
    return new Experiment(name, pipeline, parameters, objective, algorithm, maxTrials, parallel,
        maxFailedTrials, Objects.requireNonNull(value, "parameterStyle"));
  }

  /** The experiment's name, its trials' prefix. */
  public String name() {
    return name;
  }

  /**
   * The trials this experiment runs, in order: each parameter's value as the script receives
   * it. The same settings give the same trials in every JVM.
   *
   * @throws InvalidInputException for a missing search space or a grid it cannot make
   */
  public List<Map<String, String>> plan() {
    if (parameters.isEmpty()) {
      throw InvalidInputException.of("searchSpace", "has no parameters",
          "add .parameter(\"lr\", Search.logUniform(0.001, 0.1))");
    }
    return TrialPlan.propose(new SearchSpace(parameters), algorithm, maxTrials);
  }

  /**
   * Checks everything, builds and pushes the pipeline's image once, and starts running the
   * trials in the background; returns at once. Follow with
   * {@link ExperimentRun#waitForCompletion}; {@link ExperimentRun#results()} shows where it
   * stands.
   *
   * @throws InvalidInputException for bad settings, before anything is built or sent
   */
  public ExperimentRun run() {
    Objective goal = objective.orElseThrow(() -> InvalidInputException.of("objective",
        "is not set", "add .objective(Objective.maximize(\"accuracy\"))"));
    List<Map<String, String>> plan = plan();
    List<JobVariant> variants = new ArrayList<>();
    for (int i = 0; i < plan.size(); i++) {
      variants.add(variant(i + 1, plan.get(i)));
    }
    // The longest trial name and every parameter checked against the job kind, sending nothing.
    pipeline.variant(variants.get(variants.size() - 1)).dryRun();
    BuiltPipeline built = pipeline.build();
    return ExperimentRun.start(name, goal, parallel, maxFailedTrials, built, plan, variants);
  }

  /** Trial {@code number}'s job: its name, its parameters in the chosen style, its labels. */
  JobVariant variant(int number, Map<String, String> assignment) {
    JobVariant variant = JobVariant.named(name + "-" + number).args(style.args(assignment))
        .label(EXPERIMENT_LABEL, name).label(TRIAL_LABEL, String.valueOf(number));
    for (Map.Entry<String, String> env : style.env(assignment).entrySet()) {
      variant = variant.env(env.getKey(), env.getValue());
    }
    return variant;
  }

  @Override
  public String toString() {
    return "Experiment[" + name + ", parameters=" + parameters + ", objective="
        + objective.map(Object::toString).orElse("unset") + ", algorithm=" + algorithm
        + ", maxTrials=" + maxTrials + ", parallel=" + parallel
        + maxFailedTrials.map(m -> ", maxFailedTrials=" + m).orElse("") + ", style=" + style
        + "]";
  }
}

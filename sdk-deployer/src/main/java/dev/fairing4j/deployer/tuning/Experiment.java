package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.BuiltPipeline;
import dev.fairing4j.core.Deployer;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobVariant;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.core.internal.Sha256;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.job.internal.ClusterBound;
import dev.fairing4j.deployer.job.internal.CustomObjects;
import dev.fairing4j.deployer.job.internal.JobRendering;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.Yaml;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * parameters as arguments ({@code --lr=0.01}), no early stopping, and trials run by this JVM, or
 * by Trainer's OptimizationJob where the cluster serves it and the job is a TrainJob
 * ({@link TuningBackend#AUTO}). {@link #attach()} follows the same experiment again after a
 * restart; {@link #backend} hands it to Katib or the Trainer explicitly; {@link #dryRun()} prints
 * what would be created.
 */
public final class Experiment {
  private static final Logger LOG = LoggerFactory.getLogger(Experiment.class);
  /** The label every trial's objects carry: the experiment's name. */
  public static final String EXPERIMENT_LABEL = "fairing4j.dev/experiment";
  /** The label every trial's objects carry: the trial's number. */
  public static final String TRIAL_LABEL = "fairing4j.dev/trial";
  /**
   * The label every trial's objects carry: a fingerprint of its parameters, by which
   * {@link #attach()} knows a trial job was run with the parameters it would give it.
   */
  public static final String PARAMETERS_LABEL = "fairing4j.dev/trial-parameters";

  private final String name;
  private final Pipeline pipeline;
  // The objectives recorded beside the optimized one (Katib's additionalMetricNames); kept out
  // of Settings, which every fluent call copies field by field.
  private final List<Objective> recorded;
  private final Settings settings;

  /** Everything but the name and the pipeline, as one value that each fluent call copies. */
  private record Settings(TreeMap<String, Parameter> parameters, Optional<Objective> objective,
      Algorithm algorithm, int maxTrials, int parallel, Optional<Integer> maxFailedTrials,
      ParameterStyle style, TuningBackend backend, Optional<EarlyStopping> earlyStopping,
      Optional<MetricsCollector> collector) {
    /** The collector named, else the default one, Katib's StdOut with both of its forms. */
    MetricsCollector metricsCollector() {
      return collector.orElseGet(MetricsCollector::stdOut);
    }
  }

  private Experiment(String name, Pipeline pipeline, List<Objective> recorded,
      Settings settings) {
    this.name = name;
    this.pipeline = pipeline;
    this.recorded = List.copyOf(recorded);
    this.settings = settings;
  }

  /**
   * An experiment called {@code name} (a DNS-1035 label: its trials are named
   * {@code <name>-<n>}) over the job {@code pipeline} runs. The pipeline's deployer's own name is
   * not used.
   */
  public static Experiment of(String name, Pipeline pipeline) {
    Validators.dns1035Label("experiment name", name);
    return new Experiment(name, Objects.requireNonNull(pipeline, "pipeline"), List.of(),
        new Settings(new TreeMap<>(), Optional.empty(), Algorithm.random(0), 10, 1,
            Optional.empty(), ParameterStyle.ARGS, TuningBackend.AUTO, Optional.empty(),
            Optional.empty()));
  }

  private Experiment with(TreeMap<String, Parameter> parameters) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(parameters, s.objective(),
        s.algorithm(), s.maxTrials(), s.parallel(), s.maxFailedTrials(), s.style(), s.backend(),
        s.earlyStopping(), s.collector()));
  }

  /** With one more parameter to vary (replacing one of that name). */
  public Experiment parameter(String parameterName, Parameter parameter) {
    TreeMap<String, Parameter> more = new TreeMap<>(settings.parameters());
    more.put(parameterName, Objects.requireNonNull(parameter, parameterName));
    SearchSpace.of(more); // checks the name now, in the cell that wrote it
    return with(more);
  }

  /** With these parameters to vary, replacing those given so far. */
  public Experiment searchSpace(Map<String, ? extends Parameter> space) {
    return with(new TreeMap<>(SearchSpace.of(space).parameters()));
  }

  /**
   * What to optimize: {@code Objective.maximize("accuracy")}. Required (or
   * {@link #objectives(Objective, Objective...)}).
   *
   * @throws InvalidInputException when {@code value}'s metric is one the experiment records
   */
  public Experiment objective(Objective value) {
    Objects.requireNonNull(value, "objective");
    if (recorded.stream().anyMatch(r -> r.metric().equals(value.metric()))) {
      throw InvalidInputException.of("objectives", value.metric() + " is recorded already",
          "give all objectives at once with .objectives(optimized, recorded..)");
    }
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), Optional.of(
        Objects.requireNonNull(value, "objective")), s.algorithm(), s.maxTrials(), s.parallel(),
        s.maxFailedTrials(), s.style(), s.backend(), s.earlyStopping(), s.collector()));
  }

  /**
   * Several objectives, as the Kubeflow SDK's {@code optimize(objectives=[..])} takes them:
   * {@code optimized} is what the search optimizes (as {@link #objective(Objective)} sets it),
   * the {@code recorded} ones are read for every trial beside it, each by its strategy, and
   * shown by {@link ExperimentRun#metrics(Trial)}. On Katib they are the Experiment's
   * {@code additionalMetricNames}; neither Katib nor the SDK's own trials optimize more than one
   * objective, and an OptimizationJob takes one only, so there they are refused.
   *
   * @throws InvalidInputException when two objectives name one metric, or a recorded one has a
   *     goal (only the optimized objective ends the experiment at its goal)
   */
  public Experiment objectives(Objective optimized, Objective... recorded) {
    Objects.requireNonNull(optimized, "optimized");
    List<Objective> more = List.of(recorded);
    java.util.Set<String> metrics = new java.util.LinkedHashSet<>(List.of(optimized.metric()));
    for (Objective objective : more) {
      if (!metrics.add(objective.metric())) {
        throw InvalidInputException.of("objectives", "name " + objective.metric() + " twice",
            "give each metric once: the first objective is optimized, the others recorded");
      }
      if (objective.goal().isPresent()) {
        throw InvalidInputException.of("objectives", "the recorded objective "
            + objective.metric() + " has a goal; only the optimized one, the first, ends the"
            + " experiment at its goal", "drop .goal(..) from " + objective.metric()
            + ", or optimize " + objective.metric() + " by naming it first");
      }
    }
    Experiment optimizing = new Experiment(name, pipeline, List.of(), settings)
        .objective(optimized);
    return new Experiment(name, pipeline, more, optimizing.settings);
  }

  /**
   * How trials are proposed: {@code Algorithm.random(seed)} (the default, seed 0), grid, or one
   * of Katib's ({@code Algorithm.katib("tpe", ..)}, with {@link TuningBackend#KATIB}).
   */
  public Experiment algorithm(Algorithm value) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), s.objective(),
        Objects.requireNonNull(value, "algorithm"), s.maxTrials(), s.parallel(),
        s.maxFailedTrials(), s.style(), s.backend(), s.earlyStopping(), s.collector()));
  }

  /** How many trials at most (a grid runs fewer when it has fewer points); default 10. */
  public Experiment maxTrials(int value) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), s.objective(),
        s.algorithm(), Validators.atLeast("maxTrials", value, 1), s.parallel(),
        s.maxFailedTrials(), s.style(), s.backend(), s.earlyStopping(), s.collector()));
  }

  /** How many trials run at once; default 1. */
  public Experiment parallel(int value) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), s.objective(),
        s.algorithm(), s.maxTrials(), Validators.atLeast("parallel", value, 1),
        s.maxFailedTrials(), s.style(), s.backend(), s.earlyStopping(), s.collector()));
  }

  /**
   * How many trials may fail (or end without the metric) before the experiment stops and fails,
   * as Katib's {@code maxFailedTrialCount}: it fails when more than {@code value} have failed.
   * Without one, every trial runs whatever the failures.
   */
  public Experiment maxFailedTrials(int value) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), s.objective(),
        s.algorithm(), s.maxTrials(), s.parallel(),
        Optional.of(Validators.atLeast("maxFailedTrials", value, 0)), s.style(), s.backend(),
        s.earlyStopping(), s.collector()));
  }

  /**
   * How parameters reach the script: {@code --lr=0.01} (the default), {@code LR=0.01}, or
   * {@code KUBEFLOW_TRAINER_OPT_LR=0.01} as Trainer's OptimizationJob passes them.
   */
  public Experiment parameterStyle(ParameterStyle value) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), s.objective(),
        s.algorithm(), s.maxTrials(), s.parallel(), s.maxFailedTrials(),
        Objects.requireNonNull(value, "parameterStyle"), s.backend(), s.earlyStopping(),
        s.collector()));
  }

  /**
   * Who proposes and runs the trials: this JVM ({@link TuningBackend#CLIENT}), Katib
   * ({@link TuningBackend#KATIB}) or the Trainer ({@link TuningBackend#OPTIMIZATION_JOB}); by
   * default ({@link TuningBackend#AUTO}) the Trainer where the cluster serves its
   * OptimizationJob and the job is a TrainJob, else this JVM. {@link #dryRun()} prints what
   * would be created.
   */
  public Experiment backend(TuningBackend value) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), s.objective(),
        s.algorithm(), s.maxTrials(), s.parallel(), s.maxFailedTrials(), s.style(),
        Objects.requireNonNull(value, "backend"), s.earlyStopping(), s.collector()));
  }

  /**
   * Stops trials that are clearly behind, by Katib's median rule
   * ({@code EarlyStopping.medianStop()}); the objective must be printed during training (each
   * epoch's {@code accuracy=..}), not only at the end. Off by default.
   */
  public Experiment earlyStopping(EarlyStopping value) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), s.objective(),
        s.algorithm(), s.maxTrials(), s.parallel(), s.maxFailedTrials(), s.style(), s.backend(),
        Optional.of(Objects.requireNonNull(value, "earlyStopping")), s.collector()));
  }

  /**
   * How each trial's metrics are collected: {@code MetricsCollector.stdOut()} (the default: the
   * trial's output, read through Katib's default filter and the form Katib's examples print),
   * with filters of your own ({@code stdOut().filters(..)}), or one of Katib's other collectors
   * ({@code file(..)}, {@code tensorFlowEvent(..)}, {@code prometheus(..)}, {@code custom(..)}),
   * which only Katib runs ({@link TuningBackend#KATIB}). The SDK's own trials read the log
   * through the same filters, so a search gets the values Katib would.
   */
  public Experiment metricsCollector(MetricsCollector value) {
    Settings s = settings;
    return new Experiment(name, pipeline, recorded, new Settings(s.parameters(), s.objective(),
        s.algorithm(), s.maxTrials(), s.parallel(), s.maxFailedTrials(), s.style(), s.backend(),
        s.earlyStopping(), Optional.of(Objects.requireNonNull(value, "metricsCollector"))));
  }

  /** The experiment's name, its trials' prefix. */
  public String name() {
    return name;
  }

  /**
   * The trials this experiment runs, in order: each parameter's value as the script receives
   * it. The same settings give the same trials in every JVM.
   *
   * @throws InvalidInputException for a missing search space, a grid it cannot make, or one of
   *     Katib's algorithms, whose trials only Katib proposes
   */
  public List<Map<String, String>> plan() {
    return TrialPlan.propose(space(), settings.algorithm(), settings.maxTrials());
  }

  private SearchSpace space() {
    if (settings.parameters().isEmpty()) {
      throw InvalidInputException.of("searchSpace", "has no parameters",
          "add .parameter(\"lr\", Search.logUniform(0.001, 0.1))");
    }
    return new SearchSpace(settings.parameters());
  }

  /**
   * Checks everything, builds and pushes the pipeline's image once, and starts running the
   * trials in the background; returns at once. Follow with
   * {@link ExperimentRun#waitForCompletion}; {@link ExperimentRun#results()} shows where it
   * stands.
   *
   * @throws InvalidInputException for bad settings, before anything is built or sent, and when
   *     the experiment's first trial job exists already ({@link #attach()} resumes it)
   */
  public ExperimentRun run() {
    // The context checked is the one built: one preparation for the whole call.
    return preparedOnce().start();
  }

  private ExperimentRun start() {
    Choice choice = choose(Use.RUN);
    if (choice.backend() != TuningBackend.CLIENT) {
      return onController(choice, false);
    }
    Checked checked = check();
    checked.deployer().attach(checked.variants().get(0).name()).ifPresent(job -> {
      throw InvalidInputException.of("experiment", name + " has run before: its trial job "
          + job.name() + " exists", "attach() resumes it (finished trials are not rerun);"
          + " to start again, delete its trials (attach().delete()) or use another name");
    });
    BuiltPipeline built = pipeline.build();
    return ExperimentRun.start(name, checked.objective(), recorded, settings.metricsCollector(),
        settings.parallel(), settings.maxFailedTrials(), settings.earlyStopping(), () -> built,
        checked.plan(), checked.variants(), Map.of());
  }

  /**
   * Resumes following this experiment as it was started (by this JVM before a restart, or by
   * another): its trial jobs are found by name where the deployer submits, finished ones are
   * read, running ones followed, and the trials not yet submitted run as {@link #run()} would
   * run them, building the image only if one is still to be submitted. Give the settings the
   * experiment was started with: each trial job's labels must show the parameters this
   * experiment proposes for it.
   *
   * @throws InvalidInputException for bad settings, when no trial job exists ({@link #run()}
   *     starts it), or when a trial job was run with other parameters
   */
  public ExperimentRun attach() {
    return preparedOnce().resume();
  }

  private ExperimentRun resume() {
    Choice choice = choose(Use.ATTACH);
    if (choice.backend() != TuningBackend.CLIENT) {
      return onController(choice, true);
    }
    Checked checked = check();
    Map<Integer, TrainingJob> found = new TreeMap<>();
    // Trials are submitted in order and none after a refused one: the first missing ends them.
    for (int i = 0; i < checked.variants().size(); i++) {
      JobVariant variant = checked.variants().get(i);
      Optional<TrainingJob> job = checked.deployer().attach(variant.name());
      if (job.isEmpty()) {
        break;
      }
      requireTrialOf(job.get(), variant);
      found.put(i, job.get());
    }
    if (found.isEmpty()) {
      throw InvalidInputException.of("experiment", "no trial of " + name + " exists where the"
          + " deployer submits (" + checked.variants().get(0).name() + " is not there)",
          "run() starts it; check the cluster and namespace the pipeline's deployer names");
    }
    Supplier<BuiltPipeline> build = pipeline::build;
    return ExperimentRun.start(name, checked.objective(), recorded, settings.metricsCollector(),
        settings.parallel(), settings.maxFailedTrials(), settings.earlyStopping(), build,
        checked.plan(), checked.variants(), found);
  }

  /**
   * What this experiment would create, as YAML, building and creating nothing: on
   * {@link TuningBackend#KATIB}, Katib's {@code Experiment} (whose trial template is the job the
   * pipeline renders, with {@code ${trialParameters..}} where the values go) and the image-pull
   * Secret its trials share, if any; on {@link TuningBackend#OPTIMIZATION_JOB}, Trainer's
   * {@code OptimizationJob} (and that Secret); on {@link TuningBackend#CLIENT}, the job of trial
   * 1. On {@link TuningBackend#AUTO} (the default) the first line is a comment that says which
   * of these it chose and why; to choose, it asks a Kubernetes cluster whether it serves the
   * OptimizationJob, only when the experiment fits one.
   *
   * @throws InvalidInputException for bad settings, or what Katib's admission would refuse
   */
  public String dryRun() {
    return preparedOnce().render();
  }

  /**
   * This experiment reading one preparation of the pipeline's context, for one call: every
   * rendering, the collector's check and the build then read the same context, prepared once.
   */
  private Experiment preparedOnce() {
    Optional<dev.fairing4j.core.Preprocessor> preprocessor = pipeline.preprocessor();
    if (preprocessor.isEmpty() || preprocessor.get() instanceof PreparedOnce) {
      return this;
    }
    return new Experiment(name, pipeline.preprocessor(new PreparedOnce(preprocessor.get())),
        recorded, settings);
  }

  /** A preprocessor that prepares its context at most once, for one call of the experiment. */
  private static final class PreparedOnce implements dev.fairing4j.core.Preprocessor {
    private final dev.fairing4j.core.Preprocessor preprocessor;
    private dev.fairing4j.core.BuildContext context;

    PreparedOnce(dev.fairing4j.core.Preprocessor preprocessor) {
      this.preprocessor = preprocessor;
    }

    @Override
    public synchronized dev.fairing4j.core.BuildContext prepare() {
      if (context == null) {
        context = preprocessor.prepare();
      }
      return context;
    }

    @Override
    public String toString() {
      return preprocessor.toString();
    }
  }

  private String render() {
    Choice choice = choose(Use.DRY_RUN);
    String comment = settings.backend() == TuningBackend.AUTO
        ? "# backend AUTO chose " + choice.backend() + ": " + choice.why() + "\n" : "";
    if (choice.backend() == TuningBackend.CLIENT) {
      Checked checked = check();
      return comment + collectorNotes() + pipeline.variant(checked.variants().get(0)).dryRun();
    }
    return comment + (choice.backend() == TuningBackend.KATIB ? collectorNotes() : "")
        + Yaml.write(choice.planned());
  }

  /**
   * Comment lines saying where the training code prints the objective in a form the collector's
   * filters do not read, as found in its strings; empty when they read it, or for a collector
   * that reads no text.
   */
  private String collectorNotes() {
    MetricsCollector collector = settings.metricsCollector();
    if (!collector.readsText()) {
      return "";
    }
    return pipeline.preprocessor().map(p -> MetricForms.check(requireObjective().metric(),
        collector, p.prepare())).orElse("");
  }

  // The job a variant renders with the image the builder plans, building nothing; as shown,
  // with the pull Secret's password redacted.
  private List<Map<String, Object>> planned(JobVariant variant) {
    return Yaml.read(pipeline.variant(variant).dryRun());
  }

  private List<Map<String, Object>> controllerObjects(TuningBackend backend,
      Function<JobVariant, List<Map<String, Object>>> render) {
    return backend == TuningBackend.KATIB ? katibObjects(render)
        : optimizationJobObjects(render);
  }

  /**
   * The backend {@link #choose} chose and why, for {@link #dryRun()}'s comment; for Katib or the
   * Trainer, what would be created with the planned image (rendered once, also to choose).
   */
  private record Choice(TuningBackend backend, String why, List<Map<String, Object>> planned) {}

  /** What {@link #choose} chooses for: a run, an attach, a dry run (which asks, never fails). */
  private enum Use { RUN, ATTACH, DRY_RUN }

  /**
   * The backend named, or for {@link TuningBackend#AUTO} Trainer's OptimizationJob when the
   * experiment fits one (a TrainJob pipeline, random or grid, nothing the CRD cannot say), the
   * deployer's cluster serves it and, to attach, has this experiment's; else this JVM.
   */
  private Choice choose(Use use) {
    if (settings.backend() != TuningBackend.AUTO) {
      return new Choice(settings.backend(), "named", settings.backend() == TuningBackend.CLIENT
          ? List.of() : controllerObjects(settings.backend(), this::planned));
    }
    // Cheapest first: the settings, then the cluster and the job's kind, then the job
    // (rendered: the context prepared), then the API server.
    List<Map<String, Object>> rendered;
    Optional<CustomObjects> objects;
    try {
      requireFitsOptimizationJob();
      objects = pipeline.deployer().flatMap(Experiment::clusterObjects);
      if (objects.isEmpty()) {
        return client("the job is not deployed to a Kubernetes cluster");
      }
      String kind = ((ClusterBound) pipeline.deployer().orElseThrow()).kindName();
      if (!kind.equals("TrainJob")) {
        return client("an OptimizationJob runs TrainJobs, and this pipeline does not (" + kind
            + ")");
      }
      rendered = optimizationJobObjects(this::planned);
    } catch (InvalidInputException e) {
      // The problem alone: its fix names the backends AUTO chooses between.
      return client(e.getMessage().replaceFirst("^validate [^:]* failed: ", "")
          .replaceFirst(" \\(fix: .*$", ""));
    }
    String namespace = JsonTree.text(rendered.get(rendered.size() - 1), "metadata",
        "namespace").orElseThrow();
    try {
      if (!objects.get().serves(OptimizationJobRendering.API_VERSION, "OptimizationJob",
          namespace)) {
        return client("the cluster does not serve Trainer's OptimizationJob");
      }
      if (use == Use.ATTACH && objects.get().get(OptimizationJobRendering.API_VERSION,
          "OptimizationJob", namespace, name).isEmpty()) {
        return client("the cluster has no OptimizationJob " + name);
      }
    } catch (dev.fairing4j.core.FairingException e) {
      if (use != Use.DRY_RUN) {
        throw e;
      }
      return client("the cluster could not be asked whether it serves OptimizationJob ("
          + e.getMessage() + ")");
    }
    LOG.info("experiment {}: backend AUTO chose OPTIMIZATION_JOB: the cluster serves it and"
        + " the job is a TrainJob", name);
    return new Choice(TuningBackend.OPTIMIZATION_JOB, "the cluster serves Trainer's"
        + " OptimizationJob and the job is a TrainJob", rendered);
  }

  // Quiet: running the trials here is what an experiment does unless the Trainer can.
  private Choice client(String why) {
    LOG.debug("experiment {}: backend AUTO chose CLIENT (trials run from this JVM): {}", name,
        why);
    return new Choice(TuningBackend.CLIENT, why, List.of());
  }

  /** Katib's objects, the trial job rendered by {@code render} (planned or built image). */
  private List<Map<String, Object>> katibObjects(
      Function<JobVariant, List<Map<String, Object>>> render) {
    KatibRendering.checkName(name);
    Objective goal = requireObjective();
    SearchSpace space = space();
    int maxTrials = trialCount(space);
    Map<String, String> placeholders = KatibRendering.placeholders(space.parameters());
    JobVariant template = JobVariant.named(KatibRendering.placeholderName(name))
        .args(settings.style().args(placeholders)).label(EXPERIMENT_LABEL, name);
    for (Map.Entry<String, String> env : settings.style().env(placeholders).entrySet()) {
      template = template.env(env.getKey(), env.getValue());
    }
    List<Map<String, Object>> trial = render.apply(template);
    return KatibRendering.render(name, goal, recorded, settings.algorithm(), space.parameters(),
        maxTrials, settings.parallel(), settings.maxFailedTrials(), settings.earlyStopping(),
        settings.metricsCollector(), trial);
  }

  /** Trainer's objects, the trial TrainJob rendered by {@code render}. */
  private List<Map<String, Object>> optimizationJobObjects(
      Function<JobVariant, List<Map<String, Object>>> render) {
    requireFitsOptimizationJob();
    Objective goal = requireObjective();
    SearchSpace space = space();
    int maxTrials = trialCount(space);
    // ARGS: arguments the kubelet fills from the Trainer's variables; TRAINER_ENV: the script
    // reads those variables itself.
    JobVariant template = JobVariant.named(OptimizationJobRendering.placeholderName(name))
        .args(settings.style() == ParameterStyle.ARGS ? ParameterStyle.ARGS.args(
            OptimizationJobRendering.placeholders(space.parameters())) : List.of())
        .label(EXPERIMENT_LABEL, name);
    List<Map<String, Object>> trial = render.apply(template);
    return OptimizationJobRendering.render(name, goal, settings.algorithm(), space.parameters(),
        maxTrials, settings.parallel(), trial);
  }

  /** Refuses, by the setting's name, what an OptimizationJob cannot say; renders nothing. */
  private void requireFitsOptimizationJob() {
    Validators.dns1035Label("experiment name", name);
    OptimizationJobRendering.check(requireObjective(), settings.algorithm(),
        settings.maxTrials(), settings.maxFailedTrials(), settings.style());
    if (!recorded.isEmpty()) {
      throw InvalidInputException.of("objectives", "an OptimizationJob takes one objective"
          + " (its CRD allows one in spec.objectives), and " + recorded.size() + " more are"
          + " recorded", "give one objective, or use backend KATIB (which records the others"
          + " as additionalMetricNames) or CLIENT");
    }
    space();
    settings.earlyStopping().ifPresent(rule -> {
      throw InvalidInputException.of("earlyStopping", "an OptimizationJob has no early"
          + " stopping", "drop .earlyStopping(..), or use backend KATIB or CLIENT");
    });
    settings.collector().ifPresent(collector -> {
      throw InvalidInputException.of("metricsCollector", "an OptimizationJob has no metrics"
          + " collector: its trials report their metrics to the Trainer", "drop"
          + " .metricsCollector(..), or use backend KATIB or CLIENT");
    });
  }

  /**
   * Submits the experiment to Katib or the Trainer (the image built and pushed first), or with
   * {@code attach} finds it, and follows what that controller reports.
   */
  private ExperimentRun onController(Choice choice, boolean attach) {
    TuningBackend backend = choice.backend();
    boolean katib = backend == TuningBackend.KATIB;
    String controller = katib ? "Katib" : "Trainer";
    String apiVersion = katib ? KatibRendering.API_VERSION : OptimizationJobRendering.API_VERSION;
    String kind = katib ? "Experiment" : "OptimizationJob";
    List<Map<String, Object>> planned = choice.planned();
    Deployer deployer = pipeline.deployer().orElseThrow();
    deployer.validateTarget();
    CustomObjects objects = clusterObjects(deployer).orElseThrow(() -> InvalidInputException.of(
        "backend", (katib ? "Katib" : "An OptimizationJob") + " runs on a Kubernetes cluster,"
            + " and " + deployer.jobName() + " is not deployed to one", "deploy with"
            + " .on(Clusters.kubernetes()), or run the trials from this JVM with"
            + " backend(TuningBackend.CLIENT), which works on any cluster"));
    Map<String, Object> submitted = planned.get(planned.size() - 1);
    String namespace = JsonTree.text(submitted, "metadata", "namespace").orElseThrow();
    List<Map<String, Object>> shared = planned.subList(0, planned.size() - 1);
    Optional<Map<String, Object>> existing = objects.get(apiVersion, kind, namespace, name);
    if (attach && existing.isEmpty()) {
      objects.requireServed(apiVersion, kind, namespace);
      throw InvalidInputException.of("experiment", controller + " has no " + kind + " " + name
          + " in namespace " + namespace, "run() submits it");
    }
    if (!attach) {
      existing.ifPresent(found -> {
        throw InvalidInputException.of("experiment", controller + " has an " + kind + " "
            + name + " in namespace " + namespace + " already", "attach() follows it; delete"
            + " it (attach().delete()) to start again, or use another name");
      });
      // Before the build: a missing CRD is named with its install command, nothing built.
      objects.requireServed(apiVersion, kind, namespace);
      BuiltPipeline built = pipeline.build();
      // Objects, not a dry run's text: that redacts the image-pull Secret's password.
      List<Map<String, Object>> toCreate = controllerObjects(backend,
          variant -> JobRendering.objects(built.plan(variant), built.image()));
      for (Map<String, Object> object : toCreate) {
        if (object != toCreate.get(toCreate.size() - 1)) {
          createUnlessPresent(objects, object);
        }
      }
      objects.create(toCreate.get(toCreate.size() - 1));
    }
    Following follower = katib
        ? new KatibFollower(name, namespace, requireObjective(), objects, deployer::attach,
            shared)
        : new OptimizationJobFollower(name, namespace, requireObjective(),
            settings.parameters().keySet(), objects, deployer::attach, shared);
    return ExperimentRun.follow(follower, all(), Owner.current());
  }

  // A Secret an earlier run of this experiment left is the same Secret.
  private static void createUnlessPresent(CustomObjects objects, Map<String, Object> object) {
    String apiVersion = String.valueOf(object.get("apiVersion"));
    String kind = String.valueOf(object.get("kind"));
    String namespace = JsonTree.text(object, "metadata", "namespace").orElseThrow();
    String objectName = JsonTree.text(object, "metadata", "name").orElseThrow();
    if (objects.get(apiVersion, kind, namespace, objectName).isEmpty()) {
      objects.create(object);
    }
  }

  // The objects of the Kubernetes cluster the deployer submits to; empty for the local ones.
  private static Optional<CustomObjects> clusterObjects(Deployer deployer) {
    return Optional.of(deployer).filter(ClusterBound.class::isInstance)
        .flatMap(bound -> ((ClusterBound) bound).cluster())
        .flatMap(ClusterBackends::of)
        .filter(CustomObjects.Provider.class::isInstance)
        .map(backend -> ((CustomObjects.Provider) backend).customObjects());
  }

  // What a controller may propose: a grid's size, else maxTrials (Katib and the CRD refuse more).
  private int trialCount(SearchSpace space) {
    return settings.algorithm() instanceof Algorithm.Grid
        ? TrialPlan.propose(space, settings.algorithm(), settings.maxTrials()).size()
        : settings.maxTrials();
  }

  private void requireTrialOf(TrainingJob job, JobVariant variant) {
    Map<String, String> labels = job.labels();
    if (!name.equals(labels.get(EXPERIMENT_LABEL))) {
      throw InvalidInputException.of("experiment", job.kind() + " " + job.name() + " exists and"
          + " is not a trial of experiment " + name, "name the experiment differently, or"
          + " delete that job");
    }
    if (!variant.labels().get(PARAMETERS_LABEL).equals(labels.get(PARAMETERS_LABEL))) {
      throw InvalidInputException.of("experiment", "trial job " + job.name() + " was run with"
          + " other parameters than this experiment proposes for it: its search space,"
          + " algorithm, seed or parameter style changed since it started",
          "attach with the settings it was started with, or delete its trials"
          + " (they are labelled " + EXPERIMENT_LABEL + "=" + name + ") to start again");
    }
  }

  /** What {@link #run()} and {@link #attach()} check first, and what they found. */
  private record Checked(Objective objective, List<Map<String, String>> plan,
      List<JobVariant> variants, Deployer deployer) {}

  /** The optimized objective, then the recorded ones. */
  private List<Objective> all() {
    List<Objective> all = new ArrayList<>(List.of(requireObjective()));
    all.addAll(recorded);
    return all;
  }

  private Objective requireObjective() {
    return settings.objective().orElseThrow(() -> InvalidInputException.of("objective",
        "is not set", "add .objective(Objective.maximize(\"accuracy\"))"));
  }

  private Checked check() {
    Objective goal = requireObjective();
    MetricsCollector collector = settings.metricsCollector();
    if (!collector.readsLog()) {
      throw InvalidInputException.of("metricsCollector", "a " + collector.kind().katibName()
          + " collector is Katib's to run: the SDK's own trials read what a trial's log shows"
          + " (StdOut)", "run the experiment on Katib with .backend(TuningBackend.KATIB), or"
          + " print the metrics and collect them with MetricsCollector.stdOut()");
    }
    List<Map<String, String>> plan = plan();
    List<JobVariant> variants = new ArrayList<>();
    for (int i = 0; i < plan.size(); i++) {
      variants.add(variant(i + 1, plan.get(i)));
    }
    // The longest trial name and every parameter checked against the job kind, sending nothing.
    pipeline.variant(variants.get(variants.size() - 1)).dryRun();
    Deployer deployer = pipeline.deployer().orElseThrow();
    deployer.validateTarget();
    return new Checked(goal, plan, variants, deployer);
  }

  /** Trial {@code number}'s job: its name, its parameters in the chosen style, its labels. */
  JobVariant variant(int number, Map<String, String> assignment) {
    ParameterStyle style = settings.style();
    JobVariant variant = JobVariant.named(name + "-" + number).args(style.args(assignment))
        .label(EXPERIMENT_LABEL, name).label(TRIAL_LABEL, String.valueOf(number))
        .label(PARAMETERS_LABEL, fingerprint(assignment));
    for (Map.Entry<String, String> env : style.env(assignment).entrySet()) {
      variant = variant.env(env.getKey(), env.getValue());
    }
    return variant;
  }

  // A label value (63 characters at most) that changes when any parameter value or the style
  // that passes them does.
  private String fingerprint(Map<String, String> assignment) {
    List<String> parts = new ArrayList<>(List.of(settings.style().name()));
    assignment.forEach((key, value) -> parts.add(key + "=" + value));
    return Sha256.ofParts(parts).substring(0, 16);
  }

  @Override
  public String toString() {
    Settings s = settings;
    return "Experiment[" + name + ", parameters=" + s.parameters() + ", objective="
        + s.objective().map(Object::toString).orElse("unset") + ", algorithm=" + s.algorithm()
        + ", maxTrials=" + s.maxTrials() + ", parallel=" + s.parallel()
        + s.maxFailedTrials().map(m -> ", maxFailedTrials=" + m).orElse("")
        + s.earlyStopping().map(e -> ", earlyStopping=" + e).orElse("")
        + s.collector().map(c -> ", metricsCollector=" + c).orElse("") + ", style="
        + s.style() + ", backend=" + s.backend() + "]";
  }
}

package dev.fairing4j.core;

import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.core.internal.Refusals;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable description of "take this code, build it, run it there": a {@link Preprocessor},
 * an optional {@link ImageBuilder} and a {@link Deployer}. Each fluent call returns a new pipeline,
 * so re-running a notebook cell never piles up state, and one pipeline can be run many times.
 *
 * <p>{@link #run()} validates everything before the first network call (where the job goes
 * first: the cluster is chosen and its kubeconfig, context and namespace read), then builds
 * (unless the deployer runs the context directly), then deploys. {@link #dryRun()} does the same validation
 * and returns the manifests without building or sending anything. {@link #build()} stops after the
 * build: its {@link BuiltPipeline} runs the job, or variants of it ({@link #variant}), from one
 * image.
 */
public final class Pipeline {
  static final Pipeline EMPTY = new Pipeline(null, null, null, ProgressListener.NONE, null);

  private final Preprocessor preprocessor;
  private final ImageBuilder builder;
  private final Deployer deployer;
  private final ProgressListener progress;
  // The runtime whose machinery runs use; null: the calling thread's (the shared one, usually).
  private final Owner owner;

  private Pipeline(Preprocessor preprocessor, ImageBuilder builder, Deployer deployer,
      ProgressListener progress, Owner owner) {
    this.preprocessor = preprocessor;
    this.builder = builder;
    this.deployer = deployer;
    this.progress = progress;
    this.owner = owner;
  }

  /** This pipeline run on {@code newOwner}'s machinery; see {@link FairingRuntime#pipeline()}. */
  Pipeline ownedBy(Owner newOwner) {
    return new Pipeline(preprocessor, builder, deployer, progress, newOwner);
  }

  /** Where the training code comes from. */
  public Pipeline preprocessor(Preprocessor newPreprocessor) {
    return new Pipeline(Objects.requireNonNull(newPreprocessor, "preprocessor"), builder, deployer,
        progress, owner);
  }

  /** How the image is built and where it is pushed. */
  public Pipeline builder(ImageBuilder newBuilder) {
    return new Pipeline(preprocessor, Objects.requireNonNull(newBuilder, "builder"), deployer,
        progress, owner);
  }

  /**
   * What runs the job, and where: a deployer such as {@code Deployers.pyTorchJob(..)}, or any
   * {@link Deployer} of your own.
   */
  public Pipeline deployer(DeployerSource newDeployer) {
    return new Pipeline(preprocessor, builder,
        Objects.requireNonNull(newDeployer, "deployer").asDeployer(), progress, owner);
  }

  /**
   * This pipeline with its deployer's {@code variant}: the job named as it says, with its
   * arguments, environment and labels added; {@code pipeline.variant(v).dryRun()} shows one
   * point of a sweep without building anything.
   *
   * @throws InvalidInputException when no preprocessor or deployer is set, no builder where the
   *     job runs an image, or the deployer cannot make variants
   */
  public Pipeline variant(JobVariant variant) {
    Objects.requireNonNull(variant, "variant");
    requireStages();
    Deployer varied = varied(deployer, variant);
    requireBuilder(); // here, to name the job the user wrote rather than a variant of it
    return new Pipeline(preprocessor, builder, varied, progress, owner);
  }

  /** {@code deployer}'s {@code variant}, or the refusal that names the fix. */
  static Deployer varied(Deployer deployer, JobVariant variant) {
    return deployer.variant(variant).orElseThrow(() -> InvalidInputException.of("deployer",
        deployer.jobName() + " (" + deployer.getClass().getSimpleName() + ") cannot run"
            + " variants of its job", "use one of the SDK's deployers (Deployers.pyTorchJob(..),"
            + " Deployers.batchJob(..), ..), or implement Deployer.variant"));
  }

  /** Who hears about build steps, bytes pushed and phase changes. */
  public Pipeline progress(ProgressListener listener) {
    return new Pipeline(preprocessor, builder, deployer,
        GuardedListener.guard(Objects.requireNonNull(listener, "listener")), owner);
  }

  /** The preprocessor, if set. */
  public Optional<Preprocessor> preprocessor() {
    return Optional.ofNullable(preprocessor);
  }

  /** The builder, if set. */
  public Optional<ImageBuilder> builder() {
    return Optional.ofNullable(builder);
  }

  /** The deployer, if set. */
  public Optional<Deployer> deployer() {
    return Optional.ofNullable(deployer);
  }

  /**
   * Prepares the context, validates every stage, builds and pushes the image when the deployer
   * needs one, and submits the job.
   *
   * @throws InvalidInputException for bad configuration, before any network call
   */
  public TrainingJob run() {
    return owner == null ? runOwned() : owner.call(this::runOwned);
  }

  private TrainingJob runOwned() {
    requireStages();
    if (deployer instanceof EndpointDeployer) {
      throw Refusals.servesNotRuns(deployer.jobName());
    }
    return buildAndSubmit("submit ", (plan, image) -> plan.deploy(image, progress));
  }

  /**
   * Like {@link #run()}, for a deployer that serves a model ({@code Deployers.serving(..)}):
   * prepares, validates, builds and pushes the predictor's image when the deployer needs one,
   * creates the endpoint and returns its handle without waiting; follow with
   * {@link Endpoint#waitUntilReady(Duration)}.
   *
   * @throws InvalidInputException for bad configuration or a training deployer, before any
   *     network call
   */
  public Endpoint serve() {
    return owner == null ? serveOwned() : owner.call(this::serveOwned);
  }

  private Endpoint serveOwned() {
    requireStages();
    if (!(deployer instanceof EndpointDeployer)) {
      throw Refusals.runsNotServes(deployer.jobName());
    }
    return buildAndSubmit("serve ", (plan, image) -> plan.serve(image, progress));
  }

  /** What a pipeline does with its plan once the image is there: submit, or serve. */
  @FunctionalInterface
  private interface Submission<T> {
    T submit(DeploymentPlan plan, Optional<ImageRef> image);
  }

  private <T> T buildAndSubmit(String verb, Submission<T> submission) {
    BuiltPipeline built = buildOwned();
    // The plan checked before the build is the one submitted: rendered once.
    return timed(progress, verb + built.deployer().jobName(), () -> submission.submit(
        built.plan(), built.image()));
  }

  /**
   * Prepares, validates and builds and pushes the image once, without submitting anything: the
   * result runs the job, or several variants of it ({@link BuiltPipeline#run(JobVariant)}: the
   * points of a sweep, an experiment's trials), each from the same image.
   *
   * @throws InvalidInputException for bad configuration or a deployer that serves a model,
   *     before any network call
   */
  public BuiltPipeline build() {
    return owner == null ? buildForRuns() : owner.call(this::buildForRuns);
  }

  private BuiltPipeline buildForRuns() {
    requireStages();
    if (deployer instanceof EndpointDeployer) {
      throw Refusals.servesNotRuns(deployer.jobName());
    }
    return buildOwned();
  }

  private BuiltPipeline buildOwned() {
    requireStages();
    // Where the job goes is checked first: a missing cluster or kubeconfig is the deployer's
    // mistake, not a missing builder's, and must not cost a build and a push.
    deployer.validateTarget();
    Prepared prepared = prepareAndValidate();
    Deployer target = prepared.target();
    Optional<ImageRef> image = Optional.empty();
    if (target.needsImage()) {
      ImageBuilder into = effectiveBuilder();
      image = Optional.of(timed(progress, "build image", () -> into.build(
          prepared.context(), progress)));
    }
    return new BuiltPipeline(target, prepared.runs(), image, progress, owner, prepared.plan());
  }

  /** The refusal of {@link #run()} (and of a deploy) for a deployer that serves a model. */

  /**
   * The preprocessor's context, which the builder builds from, and what the job runs: the
   * image's view of it ({@link ImageBuilder#imageContext}), or without an image
   * ({@link ImageBuilder#directContext}); the deployer as it submits (with the builder's pull
   * credentials), and its plan for what the job runs, checked and rendered.
   */
  private record Prepared(BuildContext context, BuildContext runs, Deployer target,
      DeploymentPlan plan) {}

  /**
   * The multi-document YAML that {@link #run()} would submit, building and sending nothing: the
   * image shows as {@code repo:<tag derived from the context digest>} where {@code run()} pins
   * {@code repo@sha256:...}.
   */
  public String dryRun() {
    return owner == null ? dryRunOwned() : owner.call(this::dryRunOwned);
  }

  private String dryRunOwned() {
    Prepared prepared = prepareAndValidate();
    return prepared.plan().render(Optional.ofNullable(builder).map(b -> effectiveBuilder()
        .plannedImage(prepared.context())));
  }

  /**
   * The builder as the deployer's cluster uses it: one that names no target builds into the
   * cluster's own image store (podman's) when it has one.
   */
  private ImageBuilder effectiveBuilder() {
    if (!builder.hasTarget()) {
      Optional<LocalImageStore> store = deployer.localImageStore();
      if (store.isPresent()) {
        return builder.intoLocalStore(store.get());
      }
    }
    return builder;
  }

  // A private image only pulls with the credentials it was pushed with.
  private Deployer effectiveDeployer() {
    if (builder == null || !deployer.needsImage()) {
      return deployer;
    }
    // An endpoint deployer's variant serves too (EndpointDeployer narrows withPullCredentials).
    return builder.pullCredentials().<Deployer>map(deployer::withPullCredentials)
        .orElse(deployer);
  }

  private void requireStages() {
    if (preprocessor == null) {
      throw InvalidInputException.of("preprocessor", "is not set",
          "add .preprocessor(Preprocessors.python(Path.of(\"train.py\")))");
    }
    if (deployer == null) {
      throw InvalidInputException.of("deployer", "is not set",
          "add .deployer(Deployers.pyTorchJob(\"name\")...)");
    }
  }

  private void requireBuilder() {
    if (builder == null && deployer.needsImage()) {
      throw InvalidInputException.of("builder", "is not set, and " + deployer.jobName()
          + " runs an image",
          "add .builder(Builders.jib(\"<base image>\").pushTo(\"<registry>/<repository>\")), or"
              + " deploy on Clusters.local()");
    }
  }

  private Prepared prepareAndValidate() {
    requireStages();
    requireBuilder();
    BuildContext context = preprocessor.prepare();
    BuildContext runs = builder == null ? context : deployer.needsImage()
        ? builder.imageContext(context) : builder.directContext(context);
    // Planned as it is submitted: with the builder's pull credentials, when it has any.
    Deployer target = effectiveDeployer();
    DeploymentPlan plan = target.plan(runs);
    // A cluster that runs the context directly builds nothing: the build settings do not matter.
    if (builder != null && deployer.needsImage()) {
      effectiveBuilder().validate(context);
    }
    return new Prepared(context, runs, target, plan);
  }

  /** Runs {@code work} between the step's start and finish events. */
  static <T> T timed(ProgressListener progress, String step,
      java.util.function.Supplier<T> work) {
    long start = System.nanoTime();
    progress.onEvent(new ProgressEvent.StepStarted(step));
    T result = work.get();
    progress.onEvent(new ProgressEvent.StepFinished(step, Duration.ofNanos(System.nanoTime() - start)));
    return result;
  }

  @Override
  public String toString() {
    return "Pipeline[preprocessor=" + preprocessor + ", builder=" + builder + ", deployer="
        + deployer + "]";
  }
}

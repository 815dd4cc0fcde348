package dev.fairing4j.core;

import dev.fairing4j.core.internal.Owner;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A pipeline whose code is prepared and whose image is built and pushed ({@link Pipeline#build()}):
 * it runs the job, or variants of it ({@link #run(JobVariant)}: another name, more arguments,
 * environment and labels), as often as asked, each from the same image and without building
 * again. What a sweep or a hyperparameter experiment's trials run from. Safe to share between
 * threads.
 */
public final class BuiltPipeline {
  private final Deployer deployer;
  private final BuildContext runs;
  private final Optional<ImageRef> image;
  private final ProgressListener progress;
  // The runtime whose machinery the runs use; null: the calling thread's.
  private final Owner owner;
  // The plan checked before the build, for the first run; each later run plans its own (a
  // uniqueName() job gets a fresh name per run).
  private final AtomicReference<DeploymentPlan> checked;

  BuiltPipeline(Deployer deployer, BuildContext runs, Optional<ImageRef> image,
      ProgressListener progress, Owner owner, DeploymentPlan checked) {
    this.deployer = Objects.requireNonNull(deployer, "deployer");
    this.runs = Objects.requireNonNull(runs, "runs");
    this.image = Objects.requireNonNull(image, "image");
    this.progress = Objects.requireNonNull(progress, "progress");
    this.owner = owner;
    this.checked = new AtomicReference<>(Objects.requireNonNull(checked, "checked"));
  }

  /**
   * The image the jobs run, pinned by digest; empty on a cluster that runs the prepared context
   * directly (the local cluster), where nothing was built.
   */
  public Optional<ImageRef> image() {
    return image;
  }

  /** The job name the deployer was given. */
  public String jobName() {
    return deployer.jobName();
  }

  /**
   * Submits the job as {@link Pipeline#run()} would, from the image already built: the first
   * time the objects checked when it was built, then each time as planned anew.
   */
  public TrainingJob run() {
    return owned(() -> Pipeline.timed(progress, "submit " + deployer.jobName(),
        () -> plan().deploy(image, progress)));
  }

  /**
   * Submits {@code variant} of the job: named as it says, with its arguments after the
   * deployer's, its environment and labels added; from the image already built.
   *
   * @throws InvalidInputException when the deployer cannot make variants, or the variant's name
   *     does not fit the job kind, before anything is sent
   */
  public TrainingJob run(JobVariant variant) {
    DeploymentPlan plan = plan(variant);
    return owned(() -> Pipeline.timed(progress, "submit " + variant.name(),
        () -> plan.deploy(image, progress)));
  }

  /** The manifests {@link #run(JobVariant)} would submit, sending nothing. */
  public String dryRun(JobVariant variant) {
    return plan(variant).render(image);
  }

  /**
   * {@code variant}'s job checked and rendered once, from the image already built:
   * {@code render(image())} shows it and {@code deploy(image(), progress)} submits exactly that.
   *
   * @throws InvalidInputException when the deployer cannot make variants, or the variant's name
   *     does not fit the job kind, before anything is sent
   */
  public DeploymentPlan plan(JobVariant variant) {
    Objects.requireNonNull(variant, "variant");
    return Pipeline.varied(deployer, variant).plan(runs);
  }

  /** The plan checked when this was built, if no run took it yet; else a new one. */
  DeploymentPlan plan() {
    DeploymentPlan first = checked.getAndSet(null);
    return first != null ? first : deployer.plan(runs);
  }

  Deployer deployer() {
    return deployer;
  }

  private <T> T owned(java.util.function.Supplier<T> work) {
    return owner == null ? work.get() : owner.call(work);
  }

  @Override
  public String toString() {
    return "BuiltPipeline[job=" + deployer.jobName() + ", image="
        + image.map(ImageRef::toString).orElse("none (runs the context directly)") + "]";
  }
}

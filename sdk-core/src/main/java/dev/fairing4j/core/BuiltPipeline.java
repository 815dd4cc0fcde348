package dev.fairing4j.core;

import dev.fairing4j.core.internal.Owner;
import java.util.Objects;
import java.util.Optional;

/**
 * A pipeline whose code is prepared and whose image is built and pushed ({@link Pipeline#build()}):
 * it runs the job, or variants of it ({@link #run(JobVariant)}: another name, more arguments,
 * environment and labels), as often as asked, each from the same image and without building
 * again. What a sweep or a hyperparameter experiment's trials run from. Immutable and safe to
 * share between threads.
 */
public final class BuiltPipeline {
  private final Deployer deployer;
  private final BuildContext runs;
  private final Optional<ImageRef> image;
  private final ProgressListener progress;
  // The runtime whose machinery the runs use; null: the calling thread's.
  private final Owner owner;

  BuiltPipeline(Deployer deployer, BuildContext runs, Optional<ImageRef> image,
      ProgressListener progress, Owner owner) {
    this.deployer = Objects.requireNonNull(deployer, "deployer");
    this.runs = Objects.requireNonNull(runs, "runs");
    this.image = Objects.requireNonNull(image, "image");
    this.progress = Objects.requireNonNull(progress, "progress");
    this.owner = owner;
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

  /** Submits the job as {@link Pipeline#run()} would, from the image already built. */
  public TrainingJob run() {
    return owned(() -> Pipeline.timed(progress, "submit " + deployer.jobName(),
        () -> deployer.deploy(runs, image, progress)));
  }

  /**
   * Submits {@code variant} of the job: named as it says, with its arguments after the
   * deployer's, its environment and labels added; from the image already built.
   *
   * @throws InvalidInputException when the deployer cannot make variants, or the variant's name
   *     does not fit the job kind, before anything is sent
   */
  public TrainingJob run(JobVariant variant) {
    Deployer varied = varied(variant);
    return owned(() -> Pipeline.timed(progress, "submit " + varied.jobName(),
        () -> varied.deploy(runs, image, progress)));
  }

  /** The manifests {@link #run(JobVariant)} would submit, sending nothing. */
  public String dryRun(JobVariant variant) {
    return varied(variant).render(runs, image);
  }

  private Deployer varied(JobVariant variant) {
    Objects.requireNonNull(variant, "variant");
    Deployer varied = Pipeline.varied(deployer, variant);
    varied.validate(runs);
    return varied;
  }

  Deployer deployer() {
    return deployer;
  }

  BuildContext runs() {
    return runs;
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

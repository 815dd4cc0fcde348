package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.DeploymentPlan;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Refusals;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One job of the SDK's deployers, checked and rendered once ({@link JobRendering#plan}) before
 * its image exists: the objects hold {@link JobRendering#PLANNED_IMAGE} where the image goes, and
 * {@link #render}, {@link #deploy} and {@link #serve} fill it in, so the job submitted is the job
 * that was checked, name and all.
 */
final class JobPlan implements DeploymentPlan {
  private final RenderedJob job;
  private final BuildContext context;
  private final SubmitOptions submit;
  private final Supplier<ClusterBackend> backend;
  private final Supplier<String> directImage;
  private final Optional<String> model;

  /**
   * @param directImage the image when none is given: the context's on a cluster that runs it
   *     directly; throws where the cluster runs images
   * @param model the model an endpoint serves; empty for a training job
   */
  JobPlan(RenderedJob job, BuildContext context, SubmitOptions submit,
      Supplier<ClusterBackend> backend, Supplier<String> directImage, Optional<String> model) {
    this.job = Objects.requireNonNull(job, "job");
    this.context = Objects.requireNonNull(context, "context");
    this.submit = Objects.requireNonNull(submit, "submit");
    this.backend = Objects.requireNonNull(backend, "backend");
    this.directImage = Objects.requireNonNull(directImage, "directImage");
    this.model = Objects.requireNonNull(model, "model");
  }

  /** The objects as submitted with {@code image}; the planned name, namespace and all. */
  RenderedJob job(Optional<ImageRef> image) {
    String reference = image.map(ImageRef::reference).orElseGet(directImage);
    return job.withImage(JobRendering.PLANNED_IMAGE, reference);
  }

  /**
   * As YAML: an image-pull Secret shows its user and registry but {@value PullSecret#REDACTED}
   * for the password ({@link PullSecret#redacted}), because this text is printed, logged and
   * pasted; the submission sends the real value.
   */
  @Override
  public String render(Optional<ImageRef> image) {
    return Yaml.write(PullSecret.redacted(job(image).objects()));
  }

  @Override
  public TrainingJob deploy(Optional<ImageRef> image, ProgressListener progress) {
    if (model.isPresent()) {
      throw Refusals.servesNotRuns(job.name());
    }
    ClusterBackend target = backend.get();
    return target.submit(job(image), context, submit, progress);
  }

  @Override
  public Endpoint serve(Optional<ImageRef> image, ProgressListener progress) {
    String served = model.orElseThrow(() -> Refusals.runsNotServes(job.name()));
    ClusterBackend target = backend.get();
    return target.serve(job(image), context, submit, served, progress);
  }

  /** E.g. {@code plan of PyTorchJob team/mnist (2 objects)}: never the objects. */
  @Override
  public String toString() {
    return "plan of " + job;
  }
}

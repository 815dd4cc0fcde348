package dev.fairing4j.deployer.serving;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.DeploymentPlan;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.EndpointDeployer;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.internal.ClusterBackend;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.job.internal.JobKind;
import dev.fairing4j.deployer.job.internal.JobRendering;
import java.util.Objects;
import java.util.Optional;

/**
 * A serving deployer's steps as {@code Pipeline.serve()} calls them: a job deployer's validation
 * and rendering, the checks that its cluster serves, and serving. Kept off the deployers so that
 * their own methods are the settings a user writes.
 */
final class EndpointSteps implements EndpointDeployer {
  /** What differs between the serving deployers. */
  interface Shape {
    /** The deployer with other pull credentials. */
    JobDeployer<?> withPullCredentials(RegistryCredentials credentials);

    /** The kind to render for {@code context}. */
    JobKind kind(BuildContext context);

    /** The model name the endpoint answers to for {@code context}. */
    String model(BuildContext context);

    /** Whether an image is run (else the cluster runs the context, or a stored model). */
    boolean needsImage();

    /** The image to render when none is built (a stored model runs KServe's runtime). */
    default Optional<ImageRef> imageWhenNone() {
      return Optional.empty();
    }

    /** The shape of the deployer with other pull credentials. */
    Shape with(JobDeployer<?> deployer);
  }

  private final JobDeployer<?> deployer;
  private final String kindName;
  private final Shape shape;

  EndpointSteps(JobDeployer<?> deployer, String kindName, Shape shape) {
    this.deployer = Objects.requireNonNull(deployer, "deployer");
    this.kindName = Objects.requireNonNull(kindName, "kindName");
    this.shape = Objects.requireNonNull(shape, "shape");
  }

  @Override
  public String jobName() {
    return deployer.jobName();
  }

  @Override
  public void validate(BuildContext context) {
    plan(context);
  }

  /** Checks the endpoint against {@code context} and renders it, once. */
  @Override
  public DeploymentPlan plan(BuildContext context) {
    return JobRendering.planEndpoint(deployer.options(), shape.kind(context), context,
        shape.model(context), shape.imageWhenNone());
  }

  /** The cluster is set, one of fairing4j's, configured, and one that serves. */
  @Override
  public void validateTarget() {
    JobRendering.checkTarget(deployer.options(), kindName);
    deployer.options().cluster().filter(c -> ClusterBackends.of(c)
        .filter(ClusterBackend::serves).isEmpty()).ifPresent(cluster -> {
          throw InvalidInputException.of("cluster", cluster.describe() + " cannot serve a"
              + " model yet", "serve on Clusters.local(), Clusters.podman() or"
              + " Clusters.kubernetes()");
        });
  }

  @Override
  public boolean needsImage() {
    return shape.needsImage();
  }

  /** The store of a cluster that runs images without a registry ({@code Clusters.podman()}). */
  @Override
  public Optional<dev.fairing4j.core.LocalImageStore> localImageStore() {
    return deployer.options().cluster().flatMap(ClusterBackends::of)
        .flatMap(ClusterBackend::imageStore);
  }

  @Override
  public String render(BuildContext context, Optional<ImageRef> image) {
    return plan(context).render(image);
  }

  @Override
  public EndpointDeployer withPullCredentials(RegistryCredentials credentials) {
    JobDeployer<?> changed = shape.withPullCredentials(credentials);
    return new EndpointSteps(changed, kindName, shape.with(changed));
  }

  @Override
  public Endpoint serve(BuildContext context, Optional<ImageRef> image,
      ProgressListener progress) {
    return plan(context).serve(image, progress);
  }

  /** Equal when the deployers are: the same settings give the same steps. */
  @Override
  public boolean equals(Object other) {
    return other instanceof EndpointSteps that && deployer.equals(that.deployer);
  }

  @Override
  public int hashCode() {
    return deployer.hashCode();
  }

  @Override
  public String toString() {
    return deployer.toString();
  }
}

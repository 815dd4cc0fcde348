package dev.fairing4j.deployer;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Deployer;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.TrainingJob;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link JobDeployer}'s steps as the pipeline calls them. They live here, not on the deployer,
 * so that a deployer's public methods are the settings a user writes; this class sits in the
 * deployer's package to reach its package-private steps.
 */
final class JobSteps implements Deployer {
  private final JobDeployer<?> deployer;

  JobSteps(JobDeployer<?> deployer) {
    this.deployer = Objects.requireNonNull(deployer, "deployer");
  }

  @Override
  public String jobName() {
    return deployer.jobName();
  }

  @Override
  public void validate(BuildContext context) {
    deployer.validate(context);
  }

  @Override
  public void validateTarget() {
    deployer.validateTarget();
  }

  @Override
  public boolean needsImage() {
    return deployer.needsImage();
  }

  @Override
  public String render(BuildContext context, Optional<ImageRef> image) {
    return deployer.render(context, image);
  }

  @Override
  public Deployer withPullCredentials(RegistryCredentials credentials) {
    return new JobSteps(deployer.pullCredentials(credentials));
  }

  @Override
  public TrainingJob deploy(BuildContext context, Optional<ImageRef> image,
      ProgressListener progress) {
    return deployer.deploy(context, image, progress);
  }

  /** Equal when the deployers are: the same settings give the same steps. */
  @Override
  public boolean equals(Object other) {
    return other instanceof JobSteps that && deployer.equals(that.deployer);
  }

  @Override
  public int hashCode() {
    return deployer.hashCode();
  }

  /** The deployer's own description, so logs and failures name the job as before. */
  @Override
  public String toString() {
    return deployer.toString();
  }
}

package dev.fairing4j.core;

import dev.fairing4j.core.internal.Refusals;
import java.util.Objects;
import java.util.Optional;

/**
 * A deployer's job checked against one build context and rendered once
 * ({@link Deployer#plan(BuildContext)}): what a dry run prints and what a run submits are the
 * same objects, with only the image filled in. The job's name is chosen when the plan is made
 * (a {@code uniqueName()} job's suffix too), so the job that was checked is the job that runs.
 *
 * <p>One plan submits one job: {@link #deploy} or {@link #serve} once. Plans are immutable and
 * safe to share between threads.
 */
public interface DeploymentPlan {
  /**
   * The objects {@link #deploy} would create, as multi-document YAML with secrets redacted;
   * {@code image} is the planned image when none was built.
   */
  String render(Optional<ImageRef> image);

  /** Submits the planned job; {@code image} is empty exactly when no image is needed. */
  TrainingJob deploy(Optional<ImageRef> image, ProgressListener progress);

  /**
   * Creates the planned endpoint, for a plan of an {@link EndpointDeployer}.
   *
   * @throws InvalidInputException for a plan of a training job
   */
  Endpoint serve(Optional<ImageRef> image, ProgressListener progress);

  /**
   * The plan of a deployer that renders nothing ahead: {@code deployer}'s {@code validate} now,
   * its {@code render}, {@code deploy} and {@code serve} when asked. What
   * {@link Deployer#plan(BuildContext)} gives a deployer of your own by default.
   *
   * @throws InvalidInputException from {@code deployer.validate(context)}
   */
  static DeploymentPlan validated(Deployer deployer, BuildContext context) {
    Objects.requireNonNull(deployer, "deployer");
    Objects.requireNonNull(context, "context");
    deployer.validate(context);
    return new DeploymentPlan() {
      @Override
      public String render(Optional<ImageRef> image) {
        return deployer.render(context, image);
      }

      @Override
      public TrainingJob deploy(Optional<ImageRef> image, ProgressListener progress) {
        return deployer.deploy(context, image, progress);
      }

      @Override
      public Endpoint serve(Optional<ImageRef> image, ProgressListener progress) {
        if (deployer instanceof EndpointDeployer endpoint) {
          return endpoint.serve(context, image, progress);
        }
        throw Refusals.runsNotServes(deployer.jobName());
      }

      @Override
      public String toString() {
        return "plan of " + deployer;
      }
    };
  }
}

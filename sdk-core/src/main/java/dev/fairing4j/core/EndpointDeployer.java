package dev.fairing4j.core;

import dev.fairing4j.core.internal.Refusals;
import java.util.Optional;

/**
 * A deployer that serves a model instead of running a training job: {@link Pipeline#serve()}
 * calls {@link #serve}, and {@link Pipeline#run()} refuses it before anything is built. The
 * validation, rendering and pull-credential steps are a {@link Deployer}'s.
 */
public interface EndpointDeployer extends Deployer {
  /** Creates the serving objects and returns a handle on the endpoint. */
  Endpoint serve(BuildContext context, Optional<ImageRef> image, ProgressListener progress);

  /** The same deployer, pulling its image with {@code credentials}; see {@link Deployer}. */
  @Override
  default EndpointDeployer withPullCredentials(RegistryCredentials credentials) {
    return this;
  }

  /** Refused: an endpoint is not a training job. */
  @Override
  default TrainingJob deploy(BuildContext context, Optional<ImageRef> image,
      ProgressListener progress) {
    throw Refusals.servesNotRuns(jobName());
  }
}

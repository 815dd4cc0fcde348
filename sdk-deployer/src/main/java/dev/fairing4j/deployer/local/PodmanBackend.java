package dev.fairing4j.deployer.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.internal.ClusterBackend;
import dev.fairing4j.deployer.internal.RenderedJob;
import dev.fairing4j.deployer.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalRuntimes;
import dev.fairing4j.deployer.local.internal.PodmanSettings;
import dev.fairing4j.deployer.local.internal.PodmanSubmitter;
import java.util.Objects;

/**
 * What a {@link PodmanCluster} does behind its public face: runs jobs' images. Package-private so
 * that none of it shows on the public class; the deployers reach it through
 * {@link dev.fairing4j.deployer.internal.ClusterBackends}.
 */
final class PodmanBackend implements ClusterBackend {
  private final PodmanSettings settings;

  PodmanBackend(PodmanSettings settings) {
    this.settings = settings;
  }

  /**
   * Runs {@code job}'s image with podman. Called by deployers; users call
   * {@code Fairing.pipeline()...run()}.
   */
  @Override
  public TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions options,
      ProgressListener progress) {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(context, "context");
    return PodmanSubmitter.submit(settings, job, context,
        options == null ? SubmitOptions.DEFAULT : options, progress);
  }

  /** This machine has no runtime objects: it runs only the runtimes it knows by heart. */
  @Override
  public void checkTrainerRuntime(String kind, String name) {
    LocalRuntimes.require(kind, name);
  }

  /** False: podman runs the image the pipeline builds. */
  @Override
  public boolean runsContextDirectly() {
    return false;
  }
}

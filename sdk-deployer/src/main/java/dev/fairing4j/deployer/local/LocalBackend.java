package dev.fairing4j.deployer.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.internal.ClusterBackend;
import dev.fairing4j.deployer.internal.JobDirectory;
import dev.fairing4j.deployer.internal.RenderedJob;
import dev.fairing4j.deployer.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalRuntimes;
import dev.fairing4j.deployer.local.internal.LocalJobDirectory;
import dev.fairing4j.deployer.local.internal.LocalSettings;
import dev.fairing4j.deployer.local.internal.LocalSubmitter;
import dev.fairing4j.deployer.local.internal.RecordedJobs;
import java.util.Objects;

/**
 * What a {@link LocalCluster} does behind its public face: runs jobs and lists them.
 * Package-private so that none of it shows on the public class; the deployers reach it through
 * {@link dev.fairing4j.deployer.internal.ClusterBackends}.
 */
final class LocalBackend implements ClusterBackend, JobDirectory.Provider {
  private final LocalSettings settings;

  LocalBackend(LocalSettings settings) {
    this.settings = settings;
  }

  /**
   * Runs {@code job} on this machine. Called by deployers; users call
   * {@code Fairing.pipeline()...run()}.
   */
  @Override
  public TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions options,
      ProgressListener progress) {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(context, "context");
    return LocalSubmitter.submit(settings, job, context,
        options == null ? SubmitOptions.DEFAULT : options, progress);
  }

  /**
   * The local jobs for {@link dev.fairing4j.deployer.TrainingClient}, read from the state directory
   * (so another JVM's client sees them too).
   */
  @Override
  public JobDirectory jobDirectory() {
    return new LocalJobDirectory(jobs(), settings.stateDir());
  }

  /** This machine has no runtime objects: it runs only the runtimes it knows by heart. */
  @Override
  public void checkTrainerRuntime(String kind, String name) {
    LocalRuntimes.require(kind, name);
  }

  /** True: the local cluster runs the build context itself, so a pipeline builds no image. */
  @Override
  public boolean runsContextDirectly() {
    return true;
  }

  RecordedJobs jobs() {
    return new RecordedJobs(settings.stateDir(), settings.killOnTimeout());
  }
}

package dev.fairing4j.deployer.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.internal.ClusterBackend;
import dev.fairing4j.deployer.internal.JobDirectory;
import dev.fairing4j.deployer.internal.RenderedJob;
import dev.fairing4j.deployer.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalEndpoint;
import dev.fairing4j.deployer.local.internal.LocalJobDirectory;
import dev.fairing4j.deployer.local.internal.LocalSettings;
import dev.fairing4j.deployer.local.internal.RecordedJobs;
import dev.fairing4j.deployer.local.internal.plan.LocalRuntimes;
import java.util.Objects;

/**
 * What a cluster on this machine ({@link LocalCluster}, {@link PodmanCluster}) does behind its
 * public face: runs jobs and lists them. The two differ only in how a replica starts (a sandboxed
 * process over the build context, or a container of the built image), so they share this backend
 * and pass in their submitter. Package-private so that none of it shows on the public classes;
 * the deployers reach it through {@link dev.fairing4j.deployer.internal.ClusterBackends}.
 */
final class MachineBackend implements ClusterBackend, JobDirectory.Provider {
  /** How a cluster on this machine starts a job's replicas. */
  @FunctionalInterface
  interface Submitter {
    TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions options,
        ProgressListener progress);
  }

  private final LocalSettings settings;
  private final Submitter submitter;
  private final boolean runsContextDirectly;

  MachineBackend(LocalSettings settings, Submitter submitter, boolean runsContextDirectly) {
    this.settings = settings;
    this.submitter = submitter;
    this.runsContextDirectly = runsContextDirectly;
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
    return submitter.submit(job, context, options == null ? SubmitOptions.DEFAULT : options,
        progress);
  }

  /**
   * Runs a serving Deployment's replicas as a job of this machine (restarted Always, each model
   * server on its own free port) and returns the endpoint's handle.
   */
  @Override
  public Endpoint serve(RenderedJob endpoint, BuildContext context, SubmitOptions options,
      String modelName, ProgressListener progress) {
    return LocalEndpoint.of(submit(endpoint, context, options, progress), modelName);
  }

  @Override
  public boolean serves() {
    return true;
  }

  /**
   * The jobs for {@link dev.fairing4j.deployer.TrainingClient}, read from the state directory
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

  /**
   * True for the local cluster, which runs the build context itself, so a pipeline builds no
   * image; false for podman, which runs the image the pipeline builds.
   */
  @Override
  public boolean runsContextDirectly() {
    return runsContextDirectly;
  }

  RecordedJobs jobs() {
    return new RecordedJobs(settings.stateDir(), settings.killOnTimeout(),
        settings.retention());
  }
}

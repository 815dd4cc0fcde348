package dev.fairing4j.deployer.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.ClusterBackend;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalEndpoint;
import dev.fairing4j.deployer.local.internal.LocalJobDirectory;
import dev.fairing4j.deployer.local.internal.RecordedJobs;
import dev.fairing4j.deployer.local.internal.plan.LocalRuntimes;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import dev.fairing4j.deployer.monitor.internal.JobDirectory;
import java.util.Objects;

/**
 * What a cluster on this machine ({@link LocalCluster}, {@link PodmanCluster}) does behind its
 * public face: runs jobs and lists them. The two differ only in how a replica starts (a sandboxed
 * process over the build context, or a container of the built image), so they share this backend
 * and pass in their submitter. Package-private so that none of it shows on the public classes;
 * the deployers reach it through {@link dev.fairing4j.deployer.job.internal.ClusterBackends}.
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
  private final java.util.Optional<dev.fairing4j.core.LocalImageStore> imageStore;

  MachineBackend(LocalSettings settings, Submitter submitter, boolean runsContextDirectly,
      java.util.Optional<dev.fairing4j.core.LocalImageStore> imageStore) {
    this.settings = settings;
    this.submitter = submitter;
    this.runsContextDirectly = runsContextDirectly;
    this.imageStore = imageStore;
  }

  /**
   * A namespace is there when it is {@code default}, declared with
   * {@code Clusters.local().namespaces(..)}, or already holds jobs; any other is refused as a
   * Kubernetes API server refuses it ({@code namespaces "team-b" not found}), with the names it
   * could have meant.
   */
  @Override
  public void checkNamespace(String namespace) {
    if (namespace.equals("default") || settings.namespaces().contains(namespace)) {
      return;
    }
    java.util.SortedSet<String> known = new java.util.TreeSet<>(settings.namespaces());
    known.add("default");
    known.addAll(new dev.fairing4j.deployer.local.internal.state.StateStore(settings.stateDir())
        .namespaces());
    if (known.contains(namespace)) {
      return;
    }
    String close = known.stream().filter(k -> editDistance(k, namespace) <= 2).findFirst()
        .map(k -> "did you mean " + k + "? ").orElse("");
    throw dev.fairing4j.core.InvalidInputException.of("namespace", "'" + namespace + "' does"
        + " not exist on this machine's cluster (it has " + String.join(", ", known) + ")",
        close + "declare it as kubectl create namespace would: .on(Clusters.local()"
            + ".namespaces(\"" + namespace + "\")), or name an existing one");
  }

  private static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      int[] current = new int[b.length() + 1];
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        current[j] = Math.min(Math.min(current[j - 1], previous[j]) + 1,
            previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
      }
      previous = current;
    }
    return previous[b.length()];
  }

  /** Podman's storage, which a pipeline without a registry builds into. */
  @Override
  public java.util.Optional<dev.fairing4j.core.LocalImageStore> imageStore() {
    return imageStore;
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

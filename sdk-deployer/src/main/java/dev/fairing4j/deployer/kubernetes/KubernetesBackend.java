package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.deployer.job.internal.ClusterBackend;
import dev.fairing4j.deployer.job.internal.CustomObjects;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobKinds;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobSubmitter;
import dev.fairing4j.deployer.kubernetes.internal.jobs.KubeConnection;
import dev.fairing4j.deployer.kubernetes.internal.jobs.StorageReconciler;
import dev.fairing4j.deployer.kubernetes.internal.jobs.TrainJobPreflight;
import dev.fairing4j.deployer.kubernetes.internal.transport.ClusterConfigResolver;
import dev.fairing4j.deployer.kubernetes.internal.transport.ClusterSettings;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeEnvironment;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubernetesObjects;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import dev.fairing4j.deployer.monitor.internal.JobDirectory;
import dev.fairing4j.deployer.storage.Ensured;
import dev.fairing4j.deployer.storage.internal.StorageBackend;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a {@link KubernetesCluster} does behind its public face: submits jobs, ensures storage,
 * lists jobs. Package-private so that none of it shows on the public class; the deployers reach
 * it through {@link dev.fairing4j.deployer.job.internal.ClusterBackends}.
 */
final class KubernetesBackend implements ClusterBackend, StorageBackend, JobDirectory.Provider,
    CustomObjects.Provider {
  private final ClusterSettings settings;
  private final KubeEnvironment environment;
  private final Timings timings;
  // Shared by nobody else, opened on first use.
  private final KubeConnection connection;

  KubernetesBackend(ClusterSettings settings, KubeEnvironment environment, Timings timings) {
    this.settings = settings;
    this.environment = environment;
    this.timings = timings;
    this.connection = new KubeConnection(settings, environment, timings);
  }

  KubeConnection connection() {
    return connection;
  }

  /**
   * The namespace a job goes to when its deployer names none: the one chosen on the cluster, else
   * the kubeconfig context's. Empty when no configuration can be read yet, so a dry run still
   * renders (with {@code default}); the submission itself then reports the configuration problem.
   */
  @Override
  public Optional<String> jobNamespace() {
    if (settings.namespace().isPresent()) {
      return settings.namespace();
    }
    try {
      return Optional.of(connection.config().namespace());
    } catch (FairingException unreadable) {
      return Optional.empty();
    }
  }

  /**
   * Reads the kubeconfig kubectl would use (named files, {@code KUBECONFIG}, {@code ~/.kube/config}
   * or the pod's service account), so that a missing or broken file, an unknown context or a bad
   * namespace fails a pipeline before its build. Only a machine with no configuration at all is
   * let through, so that a dry run renders there; {@link #checkTarget()} refuses that too.
   *
   * @throws dev.fairing4j.core.InvalidInputException for a missing or broken kubeconfig or an
   *     unknown context
   */
  @Override
  public void checkConfiguration() {
    if (ClusterConfigResolver.configured(settings, environment)) {
      connection.config();
    }
  }

  /** Reads the configuration a submission will use; none at all is an error here. */
  @Override
  public void checkTarget() {
    connection.config();
  }

  /**
   * Creates the rendered objects and returns a handle on the job. A taken job name fails before
   * anything is created (or, with {@code replaceExisting}, the old job is deleted and awaited);
   * dependencies are created first, the training object last, then the dependencies get an
   * ownerReference to it so deleting the job removes them; a failure deletes what this call
   * created. {@code context} is not needed: the image holds the code.
   *
   * @throws dev.fairing4j.core.InvalidInputException for a broken kubeconfig, an unknown context
   *     or malformed objects, before any request
   * @throws KubernetesApiException when the API server refuses: name taken, operator missing,
   *     RBAC denial, namespace missing; for a TrainJob also a runtime that does not exist (the
   *     error lists those that do) or a cluster without the Trainer (with its install command),
   *     checked before anything is created
   */
  @Override
  public TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions options,
      ProgressListener progress) {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(options, "options");
    ProgressListener listener = progress == null ? ProgressListener.NONE
        : GuardedListener.guard(progress);
    KubeRest rest = connection.rest();
    if (JobKinds.isTrainJob(job.kind())) {
      job = new TrainJobPreflight(rest, connection).prepare(job, options);
    }
    Map<String, Object> stored = new JobSubmitter(rest, timings).submit(job, options, listener);
    String apiVersion = String.valueOf(stored.getOrDefault("apiVersion",
        job.trainingObject().get("apiVersion")));
    return new KubernetesTrainingJob(connection::rest, () -> connection.watchHub(),
        new JobRef(ResourceRef.of(apiVersion, job.kind()), job.namespace(), job.name()), timings,
        listener, Optional.of(stored));
  }

  /**
   * Creates a PersistentVolume or claim unless an equal one exists; what
   * {@code Volumes.on(cluster).ensure(..)} calls. Needs {@code get, create} on
   * {@code persistentvolumes} (a ClusterRole) or {@code persistentvolumeclaims} (a Role), and
   * {@code patch} on claims to grow one.
   */
  @Override
  public Ensured ensureStorage(Map<String, Object> manifest, String namespace) {
    Objects.requireNonNull(manifest, "manifest");
    return new StorageReconciler(connection.rest()).ensure(manifest, namespace);
  }

  /**
   * Creates a serving Deployment and its Service as a job's objects are created (the Service
   * first, owned by the Deployment), and returns the endpoint's handle.
   */
  @Override
  public Endpoint serve(RenderedJob endpoint, BuildContext context, SubmitOptions options,
      String modelName, ProgressListener progress) {
    Objects.requireNonNull(endpoint, "endpoint");
    ProgressListener listener = progress == null ? ProgressListener.NONE
        : GuardedListener.guard(progress);
    Map<String, Object> stored = new JobSubmitter(connection.rest(), timings).submit(endpoint,
        options, listener);
    String apiVersion = String.valueOf(stored.getOrDefault("apiVersion",
        endpoint.trainingObject().get("apiVersion")));
    return new KubernetesEndpoint(connection::rest, new JobRef(ResourceRef.of(apiVersion,
        endpoint.kind()), endpoint.namespace(), endpoint.name()), modelName, timings);
  }

  @Override
  public boolean serves() {
    return true;
  }

  @Override
  public boolean servesInferenceServices() {
    return true;
  }

  /** The jobs of this cluster, for {@link dev.fairing4j.deployer.TrainingClient}; reads nothing. */
  @Override
  public JobDirectory jobDirectory() {
    return new KubernetesJobDirectory(() -> connection.config().namespace(), describe(),
        connection::rest,
        () -> connection.watchHub(), timings);
  }

  /** Objects of any kind through this cluster's connection; reads nothing until used. */
  @Override
  public CustomObjects customObjects() {
    return new KubernetesObjects(connection::rest);
  }

  /** A handle on an existing job reporting phase changes to {@code progress}. */
  KubernetesTrainingJob attach(String apiVersion, String kind, String name, String namespace,
      ProgressListener progress) {
    return new KubernetesTrainingJob(connection::rest, () -> connection.watchHub(),
        new JobRef(ResourceRef.of(apiVersion, kind), namespace, name), timings,
        GuardedListener.guard(progress));
  }

  /** E.g. {@code kubernetes(context=kind-dev, namespace=kubeflow)}; reads nothing. */
  String describe() {
    List<String> parts = new ArrayList<>();
    settings.context().ifPresent(c -> parts.add("context=" + c));
    settings.namespace().ifPresent(n -> parts.add("namespace=" + n));
    if (!settings.kubeconfigs().isEmpty()) {
      parts.add("kubeconfig=" + settings.kubeconfigs().stream().map(Path::toString)
          .collect(Collectors.joining(File.pathSeparator)));
    }
    return "kubernetes(" + (parts.isEmpty() ? "current context" : String.join(", ", parts))
        + ")";
  }

  @Override
  public String toString() {
    return describe();
  }
}

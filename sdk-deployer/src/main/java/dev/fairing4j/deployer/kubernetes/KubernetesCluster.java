package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.Validators;
import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.deployer.Cluster;
import dev.fairing4j.deployer.internal.ClusterBackend;
import dev.fairing4j.deployer.internal.JobDirectory;
import dev.fairing4j.deployer.internal.RenderedJob;
import dev.fairing4j.deployer.internal.StorageBackend;
import dev.fairing4j.deployer.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.internal.ClusterSettings;
import dev.fairing4j.deployer.kubernetes.internal.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.JobKinds;
import dev.fairing4j.deployer.kubernetes.internal.JobSubmitter;
import dev.fairing4j.deployer.kubernetes.internal.KubeConnection;
import dev.fairing4j.deployer.kubernetes.internal.KubeEnvironment;
import dev.fairing4j.deployer.kubernetes.internal.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.StorageReconciler;
import dev.fairing4j.deployer.kubernetes.internal.TrainJobPreflight;
import dev.fairing4j.deployer.kubernetes.internal.ClusterConfigResolver;
import dev.fairing4j.deployer.kubernetes.internal.Timings;
import dev.fairing4j.deployer.storage.Ensured;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A Kubernetes cluster as kubectl would reach it: the kubeconfig files of {@code KUBECONFIG}
 * merged the way kubectl merges them (client-java alone reads only the first), else
 * {@code ~/.kube/config}, else the pod's service account when running in a cluster. Obtain one
 * from {@link dev.fairing4j.deployer.Clusters#kubernetes()}.
 *
 * <p>An immutable value: {@link #context(String)}, {@link #namespace(String)} and
 * {@link #kubeconfig(Path...)} return new clusters. Nothing is read on creation; the kubeconfig is
 * read by the first call that needs it and the client is built by the first that needs the
 * network, so a wrong context fails before any request. {@link #toString()} shows the choices,
 * never credentials.
 *
 * <p>RBAC it needs (all of it in {@code docs/rbac.yaml}): in the job's namespace (a Role)
 * {@code get, list, create, delete} on the job kinds ({@code pytorchjobs, tfjobs} in
 * {@code kubeflow.org}, {@code jobs} in {@code batch}); {@code get, create, patch, delete} on
 * what jobs bring along ({@code services, secrets, persistentvolumeclaims}); {@code get, list} on
 * {@code pods}, {@code get} on {@code pods/log}, {@code list} on {@code events}. Cluster-wide (a
 * ClusterRole): {@code get, create} on {@code persistentvolumes} for the storage helpers, and
 * optionally {@code get} on {@code namespaces}, used only to tell a missing namespace from a
 * missing operator when a server's 404 says neither.
 */
public final class KubernetesCluster implements Cluster, ClusterBackend, StorageBackend,
    JobDirectory.Provider {
  private final ClusterSettings settings;
  private final KubeEnvironment environment;
  private final Timings timings;
  // Not part of the value: shared by nobody else, opened on first use.
  private final KubeConnection connection;

  private KubernetesCluster(ClusterSettings settings, KubeEnvironment environment,
      Timings timings) {
    this.settings = settings;
    this.environment = environment;
    this.timings = timings;
    this.connection = new KubeConnection(settings, environment, timings);
  }

  /** The cluster kubectl would use now, with kubectl's current context and namespace. */
  public static KubernetesCluster fromKubectlDefaults() {
    return new KubernetesCluster(ClusterSettings.DEFAULT, KubeEnvironment.system(),
        Timings.DEFAULT);
  }

  /** This cluster through kubeconfig context {@code name} instead of the current context. */
  public KubernetesCluster context(String name) {
    Validators.requireText("context", name);
    return with(new ClusterSettings(Optional.of(name), settings.namespace(),
        settings.kubeconfigs()));
  }

  /**
   * This cluster with {@code namespace} as the default namespace, for jobs that do not name one,
   * instead of the context's.
   */
  public KubernetesCluster namespace(String namespace) {
    Validators.dns1123Label("namespace", namespace);
    return with(new ClusterSettings(settings.context(), Optional.of(namespace),
        settings.kubeconfigs()));
  }

  /**
   * This cluster configured by {@code files} (merged like a multi-file {@code KUBECONFIG}: the
   * first file that defines a name wins, the first {@code current-context} counts) instead of
   * {@code KUBECONFIG} or {@code ~/.kube/config}.
   */
  public KubernetesCluster kubeconfig(Path... files) {
    Objects.requireNonNull(files, "files");
    if (files.length == 0) {
      throw InvalidInputException.of("kubeconfig", "no file given",
          "pass at least one kubeconfig path");
    }
    List<Path> paths = new ArrayList<>();
    for (Path file : files) {
      paths.add(Objects.requireNonNull(file, "kubeconfig file"));
    }
    return with(new ClusterSettings(settings.context(), settings.namespace(), paths));
  }

  /** The context chosen with {@link #context(String)}, if any. */
  public Optional<String> context() {
    return settings.context();
  }

  /** The namespace chosen with {@link #namespace(String)}, if any. */
  public Optional<String> namespace() {
    return settings.namespace();
  }

  /**
   * The namespace a job goes to when its deployer names none: the one chosen here, else the
   * kubeconfig context's. Empty when no configuration can be read yet, so a dry run still renders
   * (with {@code default}); the submission itself then reports the configuration problem.
   */
  @Override
  public Optional<String> jobNamespace() {
    if (namespace().isPresent()) {
      return namespace();
    }
    try {
      return Optional.of(defaultNamespace());
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
   * @throws InvalidInputException for a missing or broken kubeconfig or an unknown context
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

  /** The kubeconfig files chosen with {@link #kubeconfig(Path...)}; empty for kubectl's. */
  public List<Path> kubeconfigFiles() {
    return settings.kubeconfigs();
  }

  /**
   * The namespace jobs go to when they name none: the chosen one, else the context's, else the
   * service account's in-cluster, else {@code default}. Reads the kubeconfig, sends nothing.
   *
   * @throws InvalidInputException when the configuration is missing or broken, or the context
   *     unknown
   */
  public String defaultNamespace() {
    return connection.config().namespace();
  }

  /**
   * The context in effect: the chosen one, else the kubeconfig's current context; empty when
   * running in-cluster without a kubeconfig. Reads the kubeconfig, sends nothing.
   */
  public Optional<String> activeContext() {
    return connection.config().context();
  }

  /** The API server URL of the context in effect. Reads the kubeconfig, sends nothing. */
  public String server() {
    return connection.config().server();
  }

  /**
   * Creates the rendered objects and returns a handle on the job. A taken job name fails before
   * anything is created (or, with {@code replaceExisting}, the old job is deleted and awaited);
   * dependencies are created first, the training object last, then the dependencies get an
   * ownerReference to it so deleting the job removes them; a failure deletes what this call
   * created. {@code context} is not needed: the image holds the code.
   *
   * @throws InvalidInputException for a broken kubeconfig, an unknown context or malformed
   *     objects, before any request
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

  /** The jobs of this cluster, for {@link dev.fairing4j.deployer.TrainingClient}; reads nothing. */
  @Override
  public JobDirectory jobDirectory() {
    return new KubernetesJobDirectory(this, connection::rest,
        () -> connection.watchHub(), timings);
  }

  /** A handle on an existing job, for re-attaching; reads nothing until it is used. */
  KubernetesTrainingJob attach(String apiVersion, String kind, String name, String namespace) {
    return attach(apiVersion, kind, name, namespace, ProgressListener.NONE);
  }

  /** A handle on an existing job reporting phase changes to {@code progress}. */
  KubernetesTrainingJob attach(String apiVersion, String kind, String name, String namespace,
      ProgressListener progress) {
    return new KubernetesTrainingJob(connection::rest, () -> connection.watchHub(),
        new JobRef(ResourceRef.of(apiVersion, kind), namespace, name), timings,
        GuardedListener.guard(progress));
  }

  /** This cluster as seen in {@code environment} (tests describe a machine with it). */
  KubernetesCluster withEnvironment(KubeEnvironment newEnvironment) {
    return new KubernetesCluster(settings, Objects.requireNonNull(newEnvironment), timings);
  }

  /** This cluster polling at {@code newTimings} (tests shorten the waits). */
  KubernetesCluster withTimings(Timings newTimings) {
    return new KubernetesCluster(settings, environment, Objects.requireNonNull(newTimings));
  }

  private KubernetesCluster with(ClusterSettings newSettings) {
    return new KubernetesCluster(newSettings, environment, timings);
  }

  /** E.g. {@code kubernetes(context=kind-dev, namespace=kubeflow)}; reads nothing. */
  @Override
  public String describe() {
    List<String> parts = new ArrayList<>();
    settings.context().ifPresent(c -> parts.add("context=" + c));
    settings.namespace().ifPresent(n -> parts.add("namespace=" + n));
    if (!settings.kubeconfigs().isEmpty()) {
      parts.add("kubeconfig=" + settings.kubeconfigs().stream().map(Path::toString)
          .collect(Collectors.joining(java.io.File.pathSeparator)));
    }
    return "kubernetes(" + (parts.isEmpty() ? "current context" : String.join(", ", parts))
        + ")";
  }

  @Override
  public String toString() {
    return describe();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof KubernetesCluster that && settings.equals(that.settings)
        && environment.equals(that.environment) && timings.equals(that.timings);
  }

  @Override
  public int hashCode() {
    return settings.hashCode();
  }
}

package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.BuildSite;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.PodBuild;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.internal.builds.KanikoBuild;
import dev.fairing4j.deployer.kubernetes.internal.transport.ClusterSettings;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeEnvironment;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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
public final class KubernetesCluster implements Cluster, BuildSite {
  static {
    // The deployers reach the backend through ClusterBackends, which says why.
    ClusterBackends.register(KubernetesCluster.class, cluster -> cluster.backend);
  }

  private final ClusterSettings settings;
  private final KubeEnvironment environment;
  private final Timings timings;
  // Not part of the value: submits, ensures storage, lists jobs; its connection opens on first use.
  private final KubernetesBackend backend;

  private KubernetesCluster(ClusterSettings settings, KubeEnvironment environment,
      Timings timings) {
    this.settings = settings;
    this.environment = environment;
    this.timings = timings;
    this.backend = new KubernetesBackend(settings, environment, timings);
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
    return backend.connection().config().namespace();
  }

  /**
   * The context in effect: the chosen one, else the kubeconfig's current context; empty when
   * running in-cluster without a kubeconfig. Reads the kubeconfig, sends nothing.
   */
  public Optional<String> activeContext() {
    return backend.connection().config().context();
  }

  /** The API server URL of the context in effect. Reads the kubeconfig, sends nothing. */
  public String server() {
    return backend.connection().config().server();
  }

  /** Submits through the backend; the package's tests submit rendered jobs directly. */
  TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions options,
      ProgressListener progress) {
    return backend.submit(job, context, options, progress);
  }

  /** A handle on an existing job, for re-attaching; reads nothing until it is used. */
  KubernetesTrainingJob attach(String apiVersion, String kind, String name, String namespace) {
    return attach(apiVersion, kind, name, namespace, ProgressListener.NONE);
  }

  /** A handle on an existing job reporting phase changes to {@code progress}. */
  KubernetesTrainingJob attach(String apiVersion, String kind, String name, String namespace,
      ProgressListener progress) {
    return backend.attach(apiVersion, kind, name, namespace, progress);
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
    return backend.describe();
  }

  /** Reads the kubeconfig as a build would; sends nothing. */
  @Override
  public void validateBuildSite() {
    backend.connection().config();
  }

  /**
   * Builds in a Kaniko pod in the build's namespace (else this cluster's): the context goes to
   * the pod's stdin through the attach API, credentials in a short-lived Secret, and the pod and
   * the Secret are deleted afterwards. Needs, besides the job permissions, {@code create} on
   * {@code pods/attach} and {@code create, delete} on {@code pods} and {@code secrets}.
   */
  @Override
  public ImageRef buildInPod(PodBuild build, ProgressListener progress) {
    return new KanikoBuild(backend.connection()).run(build, progress);
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

package dev.fairing4j.deployer.job;

import dev.fairing4j.core.Deployer;
import dev.fairing4j.core.DeployerSource;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.RegistryCredentials;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What every job kind can be told: namespace, cluster, pod mutators, per-run arguments and
 * environment, labels and annotations, naming and lifecycle limits. The kinds
 * ({@code Deployers.pyTorchJob}, {@code tfJob}, {@code trainJob}, {@code batchJob}) add their
 * own replica settings.
 *
 * <p>Deployers are immutable values: every call returns a new deployer, so re-running a notebook
 * cell never piles up mutators or env. Each setter checks its input at once; the pipeline checks
 * the whole combination (name length against pod-name suffixes, mutator targets, what the
 * mutators produced) before anything is built or sent. The pipeline's steps are behind
 * {@link #asDeployer()}, so that this class's own methods are the settings.
 *
 * @param <D> the concrete deployer type, returned by every fluent call
 */
public abstract class JobDeployer<D extends JobDeployer<D>> implements DeployerSource {
  /**
   * The restarts a PyTorchJob or TFJob gets when {@link #backoffLimit(int)} is not set: three, so
   * a passing hiccup (a worker up before its Master) is ridden out and a bug is reported within a
   * minute.
   */
  public static final int DEFAULT_BACKOFF_LIMIT = 3;

  private final JobOptions options;

  /** A deployer with {@code options}; subclasses add their kind's settings. */
  protected JobDeployer(JobOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  /** The shared settings. */
  public final JobOptions options() {
    return options;
  }

  /** A copy of this deployer (same kind settings) with other shared settings. */
  protected abstract D withOptions(JobOptions newOptions);

  /** The replica types this kind can ever have; targeted mutators must name one of them. */
  protected abstract Set<ReplicaType> replicaTypes();

  /** The job's name as configured. */
  public final String jobName() {
    return options.name();
  }

  /**
   * The namespace every object goes into. Unset, it is the cluster's (for Kubernetes the
   * kubeconfig context's namespace), else {@code default}.
   */
  public final D namespace(String namespace) {
    return withOptions(options.withNamespace(namespace));
  }

  /** Where the job runs, e.g. {@code Clusters.kubernetes()} or {@code Clusters.local()}. */
  public final D on(Cluster cluster) {
    return withOptions(options.withCluster(cluster));
  }

  /** Applies {@code mutator} to the pod template of every replica type. */
  public final D mutate(PodMutator mutator) {
    return withOptions(options.withMutator(new JobOptions.MutatorBinding(mutator, Set.of())));
  }

  /**
   * Applies {@code mutator} only to the named replica types, e.g. GPUs for {@code PS} of a TFJob.
   *
   * @throws InvalidInputException when this kind never has one of those types
   */
  public final D mutate(PodMutator mutator, ReplicaType first, ReplicaType... more) {
    Set<ReplicaType> targets = targets("mutate", "mutate(mutator)", first, more);
    return withOptions(options.withMutator(new JobOptions.MutatorBinding(mutator, targets)));
  }

  // The types a targeted call names, each one this kind has; the error names the call.
  private Set<ReplicaType> targets(String call, String untargeted, ReplicaType first,
      ReplicaType... more) {
    Set<ReplicaType> targets = EnumSet.of(Objects.requireNonNull(first, "replica type"));
    targets.addAll(Arrays.asList(more));
    for (ReplicaType type : targets) {
      if (!replicaTypes().contains(type)) {
        throw InvalidInputException.of(call + "(.., " + type + ")", kindName()
            + " has no " + type + " replicas" + (replicaTypes().isEmpty() ? "" : " (it has "
                + replicaTypes() + ")"),
            replicaTypes().isEmpty() ? "use " + untargeted + " without a replica type"
                : "target one of " + replicaTypes() + ", or use " + untargeted + " for all");
      }
    }
    return targets;
  }


  /**
   * The container's arguments for this run (replacing earlier ones), appended to the code's
   * command, e.g. {@code args("--epochs=1")}. Changes the command line without a rebuild.
   */
  public final D args(String... args) {
    return withOptions(options.withArgs(Arrays.asList(args)));
  }

  /** Like {@link #args(String...)}. */
  public final D args(List<String> args) {
    return withOptions(options.withArgs(args));
  }

  /**
   * Sets an environment variable for this run in the training container of every replica: the
   * one place for a run's literal environment. A value from a Secret is
   * {@code mutate(Mutators.envFromSecret(..))}; one baked into the image (part of its digest) is
   * the preprocessor's {@code env(..)}. Here wins over the image; a Secret's value wins over both.
   */
  public final D env(String name, String value) {
    return withOptions(options.withEnv(name, value));
  }

  /**
   * Like {@link #env(String, String)}, for the replicas of the given types only (e.g. a TFJob's
   * Chief); refused like {@link #mutate(PodMutator, ReplicaType, ReplicaType...)} for a type
   * the kind does not have.
   */
  public final D env(String name, String value, ReplicaType first, ReplicaType... more) {
    Objects.requireNonNull(value, "env value");
    Set<ReplicaType> targets = targets("env", "env(name, value)", first, more);
    return withOptions(options.withMutator(new JobOptions.MutatorBinding(
        new TargetedEnv(name, value), targets)));
  }

  /** Adds a label to the job, its other objects and its pods. */
  public final D label(String key, String value) {
    return withOptions(options.withLabel(key, value));
  }

  /** Adds labels to the job, its other objects and its pods. */
  public final D labels(Map<String, String> labels) {
    JobOptions result = options;
    for (Map.Entry<String, String> entry : labels.entrySet()) {
      result = result.withLabel(entry.getKey(), entry.getValue());
    }
    return withOptions(result);
  }

  /** Adds an annotation to the job, its other objects and its pods. */
  public final D annotation(String key, String value) {
    return withOptions(options.withAnnotation(key, value));
  }

  /** Adds annotations to the job, its other objects and its pods. */
  public final D annotations(Map<String, String> annotations) {
    JobOptions result = options;
    for (Map.Entry<String, String> entry : annotations.entrySet()) {
      result = result.withAnnotation(entry.getKey(), entry.getValue());
    }
    return withOptions(result);
  }

  /**
   * Keeps Istio from injecting its sidecar ({@code sidecar.istio.io/inject: "false"}): a sidecar
   * never exits, so the pod would never complete.
   */
  public final D disableIstioSidecar() {
    return withOptions(options.withIstioSidecarDisabled(true));
  }

  /**
   * Appends a random 5-character suffix ({@code mnist-x7k2p}) to the name at each submission, so
   * runs never collide; the name length limit leaves room for it. A dry run shows one example.
   */
  public final D uniqueName() {
    return withOptions(options.withUniqueName(true));
  }

  /** Deletes an existing job of the same name (and waits until it is gone) before submitting. */
  public final D replaceExisting() {
    return withOptions(options.withReplaceExisting(true));
  }

  /**
   * The value of the {@code fairing4j.dev/run-id} label. By default it is derived from the
   * namespace, the final job name and the build context's digest, so a dry run and the run it
   * previews agree.
   */
  public final D runId(String runId) {
    return withOptions(options.withRunId(runId));
  }

  /** Submits to this Kueue local queue (label {@code kueue.x-k8s.io/queue-name}). */
  public final D kueueQueue(String queue) {
    return withOptions(options.withKueueQueue(queue));
  }

  /**
   * How many restarts of failed replicas a job gets before it fails (at least 0). PyTorchJob and
   * TFJob default to {@link #DEFAULT_BACKOFF_LIMIT}, written into the manifest, so a script that
   * keeps crashing fails the job within a minute instead of restarting forever; the operator
   * counts the container restarts of running pods whose restart policy is OnFailure or Always
   * (under Never or ExitCode the first failing exit decides). A batch Job defaults to 0: its pods
   * never restart.
   */
  public final D backoffLimit(int limit) {
    return withOptions(options.withBackoffLimit(limit));
  }

  /** How long the job may run before it is stopped and marked failed, in seconds. */
  public final D activeDeadlineSeconds(long seconds) {
    return withOptions(options.withActiveDeadlineSeconds(seconds));
  }

  /** How long a finished job is kept before Kubernetes deletes it, in seconds. */
  public final D ttlSecondsAfterFinished(int seconds) {
    return withOptions(options.withTtlSecondsAfterFinished(seconds));
  }

  /** Creates the job suspended (no pods until it is resumed), or not. */
  public final D suspend(boolean suspended) {
    return withOptions(options.withSuspend(suspended));
  }

  /**
   * Creates an image-pull Secret {@code <job>-registry} (type
   * {@code kubernetes.io/dockerconfigjson}) from {@code credentials} before the job, and lists it
   * in {@code imagePullSecrets} of every pod, so a private image pulls. The pipeline does this
   * itself with the credentials the build pushed with; call it for an image built elsewhere.
   * Dry runs show the Secret with the password replaced by {@code <redacted>}; only the
   * submission sends the real value. The Secret is owned by the job, so deleting the job deletes
   * it.
   */
  public final D pullCredentials(RegistryCredentials credentials) {
    return withOptions(options.withPullCredentials(credentials));
  }

  /**
   * The steps a pipeline calls (validate, render, submit), which {@code Fairing.pipeline()
   * .deployer(..)} takes from here; kept off this class's own methods so that completion shows
   * the settings. {@code asDeployer().render(context, image)} prints the manifests of one
   * context. The serving deployer returns steps that serve ({@code EndpointDeployer}).
   */
  @Override
  public Deployer asDeployer() {
    return new JobSteps(this);
  }

  /** The kind's name for messages, e.g. {@code PyTorchJob}. */
  protected abstract String kindName();

  /** The shared part of {@link #toString()}: name, namespace and cluster when set. */
  protected final String describeOptions() {
    return options.name() + (options.uniqueName() ? "-*" : "")
        + options.namespace().map(ns -> ", ns=" + ns).orElse("")
        + (options.mutators().isEmpty() ? "" : ", mutators=" + options.mutators().size())
        + options.pullCredentials().map(c -> ", pull=" + c).orElse("")
        + options.cluster().map(cluster -> ", on=" + cluster.describe()).orElse("");
  }
}

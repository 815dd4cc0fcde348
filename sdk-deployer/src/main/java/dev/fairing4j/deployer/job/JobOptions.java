package dev.fairing4j.deployer.job;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.Metadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The settings every job kind shares (name, namespace, cluster, mutators, per-run args and env,
 * metadata, naming and lifecycle limits), as an immutable value. Deployers hold one and expose it
 * through {@link JobDeployer#options()}; each {@code withX} returns a new value and checks its
 * input at once, so a typo fails in the notebook cell that made it.
 *
 * @param name the job name as given (a {@link #uniqueName()} suffix is added at submission)
 * @param namespace where every object goes, if set on the deployer; otherwise the cluster's
 *     namespace (e.g. the kubeconfig context's), else {@code default}
 * @param cluster where the job runs
 * @param mutators pod-template changes, in the order given
 * @param args container arguments for this run; empty keeps the image's
 * @param env environment for this run, in the order given
 * @param labels labels for every object and pod, sorted
 * @param annotations annotations for every object and pod, sorted
 * @param istioSidecarDisabled whether pods carry {@code sidecar.istio.io/inject: "false"}
 * @param uniqueName whether a random 5-character suffix is appended to the name at submission
 * @param replaceExisting whether an existing job of the same name is deleted first
 * @param runId the run-id label value; derived from the job and the code when empty
 * @param kueueQueue the Kueue local queue, as label {@code kueue.x-k8s.io/queue-name}
 * @param backoffLimit retries before the job is marked failed
 * @param activeDeadlineSeconds how long the job may run
 * @param ttlSecondsAfterFinished how long a finished job is kept before it is deleted
 * @param suspend whether the job is created suspended
 * @param pullCredentials registry credentials the job's image-pull Secret is made from; printed
 *     as {@code user@registry}, the password never
 */
public record JobOptions(String name, Optional<String> namespace, Optional<Cluster> cluster,
    List<MutatorBinding> mutators, List<String> args, Map<String, String> env,
    Map<String, String> labels, Map<String, String> annotations, boolean istioSidecarDisabled,
    boolean uniqueName, boolean replaceExisting, Optional<String> runId,
    Optional<String> kueueQueue, Optional<Integer> backoffLimit,
    Optional<Long> activeDeadlineSeconds, Optional<Integer> ttlSecondsAfterFinished,
    boolean suspend, Optional<RegistryCredentials> pullCredentials) {

  /** The namespace used when neither the deployer nor the cluster names one. */
  public static final String DEFAULT_NAMESPACE = "default";

  /** The namespace set on the deployer, else {@value #DEFAULT_NAMESPACE}. */
  public String effectiveNamespace() {
    return namespace.orElse(DEFAULT_NAMESPACE);
  }

  /**
   * A mutator and the replica types it applies to.
   *
   * @param mutator the change
   * @param targets the replica types it is for; empty means every replica of the job
   */
  public record MutatorBinding(PodMutator mutator, Set<ReplicaType> targets) {
    /** Copies the targets. */
    public MutatorBinding {
      Objects.requireNonNull(mutator, "mutator");
      targets = targets.isEmpty() ? Set.of()
          : Collections.unmodifiableSet(EnumSet.copyOf(targets));
    }

    /** True when this binding applies to {@code type} (every type when no target is named). */
    public boolean appliesTo(Optional<ReplicaType> type) {
      return targets.isEmpty() || type.map(targets::contains).orElse(false);
    }
  }

  /** Copies and checks every part. */
  public JobOptions {
    Validators.dns1035Label("name", name);
    Objects.requireNonNull(namespace, "namespace").ifPresent(ns -> Validators.dns1123Label("namespace", ns));
    Objects.requireNonNull(cluster, "cluster");
    mutators = List.copyOf(mutators);
    args = List.copyOf(args);
    env.keySet().forEach(JobOptions::checkEnvName);
    env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
    labels.forEach(Metadata::checkLabel);
    labels = Collections.unmodifiableMap(new TreeMap<>(labels));
    annotations.forEach(Metadata::checkAnnotation);
    annotations = Collections.unmodifiableMap(new TreeMap<>(annotations));
    Objects.requireNonNull(runId, "runId").ifPresent(id -> Metadata.checkLabel(Metadata.RUN_ID,
        id));
    Objects.requireNonNull(kueueQueue, "kueueQueue").ifPresent(queue -> Metadata.checkLabel(
        Metadata.KUEUE_QUEUE, queue));
    Objects.requireNonNull(backoffLimit, "backoffLimit");
    Objects.requireNonNull(activeDeadlineSeconds, "activeDeadlineSeconds");
    Objects.requireNonNull(ttlSecondsAfterFinished, "ttlSecondsAfterFinished");
    Objects.requireNonNull(pullCredentials, "pullCredentials");
  }

  /** Settings for a job called {@code name} with every default. */
  public static JobOptions named(String name) {
    return new JobOptions(name, Optional.empty(), Optional.empty(), List.of(), List.of(),
        Map.of(), Map.of(), Map.of(), false, false, false, Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), Optional.empty(), false, Optional.empty());
  }

  /** With another job name (a DNS-1035 label). */
  public JobOptions withName(String value) {
    return edit(b -> b.name = Validators.dns1035Label("name", value));
  }

  /** With another namespace (a DNS-1123 label). */
  public JobOptions withNamespace(String value) {
    return edit(b -> b.namespace = Optional.of(Validators.dns1123Label("namespace", value)));
  }

  /** With the cluster the job runs on. */
  public JobOptions withCluster(Cluster value) {
    return edit(b -> b.cluster = Optional.of(Objects.requireNonNull(value, "cluster")));
  }

  /** With one more mutator. */
  public JobOptions withMutator(MutatorBinding binding) {
    return edit(b -> b.mutators.add(Objects.requireNonNull(binding, "mutator")));
  }

  /** With these container arguments, replacing earlier ones. */
  public JobOptions withArgs(List<String> value) {
    value.forEach(arg -> Objects.requireNonNull(arg, "args element"));
    return edit(b -> b.args = List.copyOf(value));
  }

  /** With one environment variable set (replacing one of that name). */
  public JobOptions withEnv(String key, String value) {
    checkEnvName(key);
    Objects.requireNonNull(value, "env value");
    return edit(b -> b.env.put(key, value));
  }

  /** With one label on every object and pod. */
  public JobOptions withLabel(String key, String value) {
    return edit(b -> b.labels.put(key, value));
  }

  /** With one annotation on every object and pod. */
  public JobOptions withAnnotation(String key, String value) {
    return edit(b -> b.annotations.put(key, value));
  }

  /** With or without the Istio sidecar. */
  public JobOptions withIstioSidecarDisabled(boolean value) {
    return edit(b -> b.istioSidecarDisabled = value);
  }

  /** With or without a generated unique suffix. */
  public JobOptions withUniqueName(boolean value) {
    return edit(b -> b.uniqueName = value);
  }

  /** With or without replacing an existing job. */
  public JobOptions withReplaceExisting(boolean value) {
    return edit(b -> b.replaceExisting = value);
  }

  /** With an explicit run id (a label value). */
  public JobOptions withRunId(String value) {
    Validators.requireText("runId", value);
    return edit(b -> b.runId = Optional.of(value));
  }

  /** With a Kueue local queue. */
  public JobOptions withKueueQueue(String value) {
    Validators.requireText("kueueQueue", value);
    return edit(b -> b.kueueQueue = Optional.of(value));
  }

  /** With a retry limit (at least 0). */
  public JobOptions withBackoffLimit(int value) {
    Validators.atLeast("backoffLimit", value, 0);
    return edit(b -> b.backoffLimit = Optional.of(value));
  }

  /** With a running-time limit (at least 1 second). */
  public JobOptions withActiveDeadlineSeconds(long value) {
    if (value < 1) {
      throw InvalidInputException.of("activeDeadlineSeconds", value + " is below 1",
          "give the longest time the job may run, in seconds, e.g. 3600");
    }
    return edit(b -> b.activeDeadlineSeconds = Optional.of(value));
  }

  /** With a time-to-live after the end (at least 0). */
  public JobOptions withTtlSecondsAfterFinished(int value) {
    Validators.atLeast("ttlSecondsAfterFinished", value, 0);
    return edit(b -> b.ttlSecondsAfterFinished = Optional.of(value));
  }

  /** Created suspended, or not. */
  public JobOptions withSuspend(boolean value) {
    return edit(b -> b.suspend = value);
  }

  /** With an image-pull Secret made from {@code credentials} (replacing earlier ones). */
  public JobOptions withPullCredentials(RegistryCredentials credentials) {
    Objects.requireNonNull(credentials, "pullCredentials");
    return edit(b -> b.pullCredentials = Optional.of(credentials));
  }

  private static void checkEnvName(String key) {
    if (!PodTemplate.isEnvName(key)) {
      throw InvalidInputException.of("env", "'" + key + "' is not a variable name",
          "use printable ASCII without '=', e.g. EPOCHS");
    }
  }

  private JobOptions edit(Consumer<Builder> change) {
    Builder builder = new Builder(this);
    change.accept(builder);
    return builder.build();
  }

  // A scratch copy for the withX methods: one place lists every component, so adding a setting
  // touches one constructor call instead of eighteen.
  private static final class Builder {
    private String name;
    private Optional<String> namespace;
    private Optional<Cluster> cluster;
    private final List<MutatorBinding> mutators;
    private List<String> args;
    private final Map<String, String> env;
    private final Map<String, String> labels;
    private final Map<String, String> annotations;
    private boolean istioSidecarDisabled;
    private boolean uniqueName;
    private boolean replaceExisting;
    private Optional<String> runId;
    private Optional<String> kueueQueue;
    private Optional<Integer> backoffLimit;
    private Optional<Long> activeDeadlineSeconds;
    private Optional<Integer> ttlSecondsAfterFinished;
    private boolean suspend;
    private Optional<RegistryCredentials> pullCredentials;

    Builder(JobOptions from) {
      name = from.name;
      namespace = from.namespace;
      cluster = from.cluster;
      mutators = new ArrayList<>(from.mutators);
      args = from.args;
      env = new LinkedHashMap<>(from.env);
      labels = new TreeMap<>(from.labels);
      annotations = new TreeMap<>(from.annotations);
      istioSidecarDisabled = from.istioSidecarDisabled;
      uniqueName = from.uniqueName;
      replaceExisting = from.replaceExisting;
      runId = from.runId;
      kueueQueue = from.kueueQueue;
      backoffLimit = from.backoffLimit;
      activeDeadlineSeconds = from.activeDeadlineSeconds;
      ttlSecondsAfterFinished = from.ttlSecondsAfterFinished;
      suspend = from.suspend;
      pullCredentials = from.pullCredentials;
    }

    JobOptions build() {
      return new JobOptions(name, namespace, cluster, mutators, args, env, labels, annotations,
          istioSidecarDisabled, uniqueName, replaceExisting, runId, kueueQueue, backoffLimit,
          activeDeadlineSeconds, ttlSecondsAfterFinished, suspend, pullCredentials);
    }
  }
}

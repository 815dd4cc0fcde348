package dev.fairing4j.deployer.batch;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.job.internal.DeployerKinds;
import dev.fairing4j.deployer.job.internal.JobKind;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.Metadata;
import dev.fairing4j.deployer.job.internal.NamedPort;
import dev.fairing4j.deployer.job.internal.ReplicaSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A plain Kubernetes {@code batch/v1} Job, for clusters without the Kubeflow operator. One pod by
 * default; with {@link #replicas(int)} above 1 it becomes a distributed job that runs PyTorch DDP
 * on its own: an Indexed Job (one pod per rank), a headless Service named like the job with the
 * pods as its {@code subdomain}, and the environment the operator would have given:
 * {@code MASTER_ADDR=<job>-0.<job>}, {@code MASTER_PORT}, {@code WORLD_SIZE} and {@code RANK}
 * (the pod's completion index, read through the downward API).
 *
 * <p>The container is named {@code training}. {@code backoffLimit} defaults to 0 (a failing
 * script rarely fixes itself on retry) and is written out, as are completions and parallelism.
 * An immutable value: obtain one from {@code Deployers.batchJob(name)}.
 */
public final class BatchJobDeployer extends JobDeployer<BatchJobDeployer> {
  static {
    // How JobDeployer reaches this kind's rendering without a protected internal type.
    DeployerKinds.register(BatchJobDeployer.class, (deployer, context) -> deployer.kind());
  }

  /** The training container's name. */
  public static final String CONTAINER = "training";
  /** The rendezvous port of a distributed job, as for a PyTorchJob. */
  public static final int MASTER_PORT = 23456;
  /** The container port's name in a distributed job. */
  public static final String PORT_NAME = "master-port";
  /** The pod annotation the Job controller sets to the pod's index. */
  public static final String COMPLETION_INDEX_ANNOTATION =
      "batch.kubernetes.io/job-completion-index";

  private final int replicas;
  private final Optional<Integer> completions;
  private final Optional<Integer> parallelism;
  private final RestartPolicy restartPolicy;

  private BatchJobDeployer(JobOptions options, int replicas, Optional<Integer> completions,
      Optional<Integer> parallelism, RestartPolicy restartPolicy) {
    super(options);
    this.replicas = replicas;
    this.completions = completions;
    this.parallelism = parallelism;
    this.restartPolicy = restartPolicy;
  }

  /**
   * A one-pod Job called {@code name}, restartPolicy Never, backoffLimit 0, in namespace
   * {@code default}.
   *
   * @throws InvalidInputException when the name is not a DNS-1035 label
   */
  public static BatchJobDeployer named(String name) {
    return new BatchJobDeployer(JobOptions.named(name), 1, Optional.empty(), Optional.empty(),
        RestartPolicy.NEVER);
  }

  /**
   * How many pods train together (at least 1). Above 1 the job is rendered as an Indexed Job
   * with a headless Service and the rank environment, so DDP runs without the operator.
   */
  public BatchJobDeployer replicas(int count) {
    Validators.atLeast("replicas", count, 1);
    return new BatchJobDeployer(options(), count, completions, parallelism, restartPolicy);
  }

  /** The same as {@link #replicas(int)}: {@code pods} ranks of one distributed run. */
  public BatchJobDeployer distributed(int pods) {
    return replicas(pods);
  }

  /**
   * For a one-replica job: how many successful pods complete it (default 1), as in a work queue.
   */
  public BatchJobDeployer completions(int count) {
    Validators.atLeast("completions", count, 1);
    return new BatchJobDeployer(options(), replicas, Optional.of(count), parallelism,
        restartPolicy);
  }

  /** For a one-replica job: how many pods run at once (default 1). */
  public BatchJobDeployer parallelism(int count) {
    Validators.atLeast("parallelism", count, 1);
    return new BatchJobDeployer(options(), replicas, completions, Optional.of(count),
        restartPolicy);
  }

  /** Never (default) or OnFailure; a Job's pods allow nothing else. */
  public BatchJobDeployer restartPolicy(RestartPolicy policy) {
    if (policy != RestartPolicy.NEVER && policy != RestartPolicy.ON_FAILURE) {
      throw InvalidInputException.of("restartPolicy", "a batch Job's pods cannot use " + policy,
          "use RestartPolicy.NEVER or RestartPolicy.ON_FAILURE (ExitCode and Always are for"
              + " Kubeflow jobs)");
    }
    return new BatchJobDeployer(options(), replicas, completions, parallelism, policy);
  }

  /** The number of pods that train together. */
  public int replicas() {
    return replicas;
  }

  @Override
  protected BatchJobDeployer withOptions(JobOptions newOptions) {
    return new BatchJobDeployer(newOptions, replicas, completions, parallelism, restartPolicy);
  }

  @Override
  protected Set<ReplicaType> replicaTypes() {
    return Set.of();
  }

  @Override
  protected String kindName() {
    return "a batch Job";
  }

  private JobKind kind() {
    return new Kind();
  }

  private boolean distributedRun() {
    return replicas > 1;
  }

  private final class Kind implements JobKind {
    @Override
    public String apiVersion() {
      return "batch/v1";
    }

    @Override
    public String kind() {
      return "Job";
    }

    @Override
    public String containerName() {
      return CONTAINER;
    }

    @Override
    public Optional<NamedPort> port() {
      return distributedRun() ? Optional.of(new NamedPort(PORT_NAME, MASTER_PORT))
          : Optional.empty();
    }

    @Override
    public List<ReplicaSlot> slots() {
      return List.of(new ReplicaSlot(Optional.empty(), replicas, restartPolicy));
    }

    @Override
    public int reservedNameSuffix() {
      // An Indexed Job's pod hostname is <job>-<index>, and a hostname is a DNS label.
      return distributedRun() ? ("-" + (replicas - 1)).length() : 0;
    }

    @Override
    public void validate(JobOptions options) {
      Validators.atLeast("replicas", replicas, 1);
      if (distributedRun() && (completions.isPresent() || parallelism.isPresent())) {
        throw InvalidInputException.of(completions.isPresent() ? "completions" : "parallelism",
            "is set on a distributed Job of " + replicas + " replicas, where both equal the"
                + " replica count", "drop completions(..)/parallelism(..), or use replicas(1)");
      }
    }

    @Override
    public List<Map<String, Object>> synthesizedEnv(String jobName, String namespace) {
      if (!distributedRun()) {
        return List.of();
      }
      List<Map<String, Object>> env = new ArrayList<>();
      env.add(literal("MASTER_ADDR", jobName + "-0." + jobName));
      env.add(literal("MASTER_PORT", String.valueOf(MASTER_PORT)));
      env.add(literal("WORLD_SIZE", String.valueOf(replicas)));
      Map<String, Object> fieldRef = Json.map();
      fieldRef.put("fieldPath", "metadata.annotations['" + COMPLETION_INDEX_ANNOTATION + "']");
      Map<String, Object> rank = Json.map();
      rank.put("name", "RANK");
      rank.put("valueFrom", Map.of("fieldRef", fieldRef));
      env.add(rank);
      return env;
    }

    @Override
    public Map<String, Object> podSpecFields(String jobName) {
      Map<String, Object> fields = Json.map();
      if (distributedRun()) {
        fields.put("subdomain", jobName);
      }
      fields.put("restartPolicy", restartPolicy.value());
      return fields;
    }

    @Override
    public Map<String, Object> spec(String jobName, JobOptions options,
        List<Map<String, Object>> templates) {
      Map<String, Object> spec = Json.map();
      if (distributedRun()) {
        spec.put("completionMode", "Indexed");
      }
      spec.put("completions", distributedRun() ? replicas : completions.orElse(1));
      spec.put("parallelism", distributedRun() ? replicas : parallelism.orElse(1));
      spec.put("backoffLimit", options.backoffLimit().orElse(0));
      options.activeDeadlineSeconds().ifPresent(v -> spec.put("activeDeadlineSeconds", v));
      options.ttlSecondsAfterFinished().ifPresent(v -> spec.put("ttlSecondsAfterFinished", v));
      if (options.suspend()) {
        spec.put("suspend", true);
      }
      spec.put("template", templates.get(0));
      return spec;
    }

    @Override
    public List<Map<String, Object>> dependencies(String jobName, Map<String, Object> metadata) {
      if (!distributedRun()) {
        return List.of();
      }
      Map<String, Object> port = Json.map();
      port.put("name", PORT_NAME);
      port.put("port", MASTER_PORT);
      port.put("targetPort", MASTER_PORT);
      Map<String, Object> spec = Json.map();
      spec.put("clusterIP", "None");
      // Ranks resolve each other while starting, before any readiness.
      spec.put("publishNotReadyAddresses", true);
      spec.put("selector", Map.of(Metadata.JOB_NAME, jobName));
      spec.put("ports", List.of(port));
      Map<String, Object> service = Json.map();
      service.put("apiVersion", "v1");
      service.put("kind", "Service");
      service.put("metadata", metadata);
      service.put("spec", spec);
      return List.of(Json.copyMap(service));
    }

    private Map<String, Object> literal(String name, String value) {
      Map<String, Object> entry = Json.map();
      entry.put("name", name);
      entry.put("value", value);
      return entry;
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof BatchJobDeployer that && options().equals(that.options())
        && replicas == that.replicas && completions.equals(that.completions)
        && parallelism.equals(that.parallelism) && restartPolicy == that.restartPolicy;
  }

  @Override
  public int hashCode() {
    return Objects.hash(options(), replicas, completions, parallelism, restartPolicy);
  }

  @Override
  public String toString() {
    return "Job[" + describeOptions() + ", replicas=" + replicas
        + (distributedRun() ? " (indexed)" : "") + "]";
  }
}

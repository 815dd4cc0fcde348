package dev.fairing4j.deployer.serving;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Deployer;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.job.internal.ClusterBackend;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.job.internal.DeployerKinds;
import dev.fairing4j.deployer.job.internal.JobKind;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.Metadata;
import dev.fairing4j.deployer.job.internal.NamedPort;
import dev.fairing4j.deployer.job.internal.ReplicaSlot;
import dev.fairing4j.deployer.job.internal.ServedModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Serves a model behind an endpoint, as Kubeflow Fairing's {@code serving} deployer did: an
 * {@code apps/v1} Deployment running the predictor's model server ({@code
 * Preprocessors.predictor(..)}) in a container named {@value #CONTAINER} on port
 * {@value #PORT}, ready when the server's V1 readiness path {@code /v1/models/<model>} answers
 * (the model loaded), and a ClusterIP Service {@code <name>} on port {@value #SERVICE_PORT}.
 * Every pod mutator applies (resources, GPUs, the claim the model is on); the job settings that
 * only a job has (backoff, deadline, TTL, suspend, a Kueue queue) are refused.
 *
 * <p>{@code Fairing.pipeline()...deployer(Deployers.serving("mnist")...).serve()} returns the
 * {@link dev.fairing4j.core.Endpoint}. An immutable value: obtain one from
 * {@code Deployers.serving(name)}.
 */
public final class ServingDeployer extends JobDeployer<ServingDeployer> {
  static {
    DeployerKinds.register(ServingDeployer.class, ServingDeployer::kind);
  }

  /** The model server's container name, as KServe names a custom predictor's. */
  public static final String CONTAINER = ServedModel.CONTAINER;
  /** The port the model server listens on in the pod. */
  public static final int PORT = 8080;
  /** The port's name, which the Service and the readiness probe refer to. */
  public static final String PORT_NAME = "http";
  /** The Service's port. */
  public static final int SERVICE_PORT = 80;
  /** The label that marks a serving pod, beside the endpoint name, for the Service's selector. */
  public static final String ROLE_LABEL = ServedModel.ROLE_LABEL;
  /** The value of {@link #ROLE_LABEL}. */
  public static final String ROLE = ServedModel.ROLE;

  private final int replicas;
  private final Optional<String> modelName;

  private ServingDeployer(JobOptions options, int replicas, Optional<String> modelName) {
    super(options);
    this.replicas = replicas;
    this.modelName = modelName;
  }

  /**
   * An endpoint called {@code name} with one replica, in namespace {@code default}.
   *
   * @throws dev.fairing4j.core.InvalidInputException when the name is not a DNS-1035 label
   */
  public static ServingDeployer named(String name) {
    return new ServingDeployer(JobOptions.named(name).withLabel(ROLE_LABEL, ROLE), 1,
        Optional.empty());
  }

  /** How many pods serve (at least 1); the Service spreads requests over the ready ones. */
  public ServingDeployer replicas(int count) {
    Validators.atLeast("replicas", count, 1);
    return new ServingDeployer(options(), count, modelName);
  }

  /**
   * The model name in the V1 paths. Not needed with {@code Preprocessors.predictor(..)}, whose
   * server answers to its {@code modelName(..)} or the file's stem; for an image with a server
   * of its own, the name that server answers to.
   */
  public ServingDeployer modelName(String name) {
    return new ServingDeployer(options(), replicas, Optional.of(ServingChecks.check(name)));
  }

  /** The number of serving pods. */
  public int replicas() {
    return replicas;
  }

  /** The model name set with {@link #modelName(String)}, if any. */
  public Optional<String> modelName() {
    return modelName;
  }

  @Override
  protected ServingDeployer withOptions(JobOptions newOptions) {
    return new ServingDeployer(newOptions, replicas, modelName);
  }

  @Override
  protected Set<ReplicaType> replicaTypes() {
    return Set.of();
  }

  @Override
  protected String kindName() {
    return "a serving Deployment";
  }

  /** The steps {@code Pipeline.serve()} calls: validate, render, create the endpoint. */
  @Override
  public Deployer asDeployer() {
    return new EndpointSteps(this, kindName(), shape(this));
  }

  private static EndpointSteps.Shape shape(ServingDeployer deployer) {
    return new EndpointSteps.Shape() {
      @Override
      public JobDeployer<?> withPullCredentials(RegistryCredentials credentials) {
        return deployer.pullCredentials(credentials);
      }

      @Override
      public JobKind kind(BuildContext context) {
        return deployer.kind(context);
      }

      @Override
      public String model(BuildContext context) {
        return ServingChecks.of(context, deployer.modelName, deployer.jobName());
      }

      @Override
      public boolean needsImage() {
        return !deployer.options().cluster().flatMap(ClusterBackends::of)
            .map(ClusterBackend::runsContextDirectly).orElse(false);
      }

      @Override
      public EndpointSteps.Shape with(JobDeployer<?> changed) {
        return shape((ServingDeployer) changed);
      }
    };
  }

  private JobKind kind(BuildContext context) {
    return new Kind(ServingChecks.of(context, modelName, jobName()), modelName,
        ServingChecks.runsModelServer(context));
  }

  private final class Kind implements JobKind {
    private final String model;
    private final Optional<String> envModelName;
    private final boolean modelServer;

    Kind(String model, Optional<String> envModelName, boolean modelServer) {
      this.model = model;
      this.envModelName = envModelName;
      this.modelServer = modelServer;
    }

    @Override
    public String apiVersion() {
      return "apps/v1";
    }

    @Override
    public String kind() {
      return "Deployment";
    }

    @Override
    public String containerName() {
      return CONTAINER;
    }

    @Override
    public Optional<NamedPort> port() {
      return Optional.of(new NamedPort(PORT_NAME, PORT));
    }

    @Override
    public List<ReplicaSlot> slots() {
      return List.of(new ReplicaSlot(Optional.empty(), replicas, RestartPolicy.ALWAYS));
    }

    @Override
    public int reservedNameSuffix() {
      // A Deployment's pods are <name>-<10-character ReplicaSet hash>-<5 characters>.
      return 17;
    }

    @Override
    public void validate(JobOptions options) {
      Validators.atLeast("replicas", replicas, 1);
      ServingChecks.refuseJobSettings(options, "Deployers.serving(..)");
      ServingChecks.refuseServerArgs(modelServer, options.args());
    }

    @Override
    public List<Map<String, Object>> synthesizedEnv(String jobName, String namespace) {
      List<Map<String, Object>> env = new ArrayList<>();
      env.add(literal("PORT", String.valueOf(PORT)));
      envModelName.ifPresent(name -> env.add(literal("MODEL_NAME", name)));
      return env;
    }

    @Override
    public Map<String, Object> podSpecFields(String jobName) {
      return Map.of("restartPolicy", RestartPolicy.ALWAYS.value());
    }

    @Override
    public Map<String, Object> spec(String jobName, JobOptions options,
        List<Map<String, Object>> templates) {
      Map<String, Object> template = templates.get(0);
      for (Object container : Json.list(Json.child(template, "spec"), "containers")) {
        if (container instanceof Map<?, ?> map && CONTAINER.equals(map.get("name"))) {
          @SuppressWarnings("unchecked")
          Map<String, Object> serving = (Map<String, Object>) map;
          serving.put("readinessProbe", ServedModel.readinessProbe(model, PORT_NAME));
        }
      }
      Map<String, Object> spec = Json.map();
      spec.put("replicas", replicas);
      spec.put("selector", Map.of("matchLabels", selector(jobName)));
      spec.put("template", template);
      return spec;
    }

    @Override
    public List<Map<String, Object>> dependencies(String jobName, Map<String, Object> metadata) {
      Map<String, Object> port = Json.map();
      port.put("name", PORT_NAME);
      port.put("port", SERVICE_PORT);
      port.put("targetPort", PORT_NAME);
      Map<String, Object> spec = Json.map();
      spec.put("type", "ClusterIP");
      spec.put("selector", selector(jobName));
      spec.put("ports", List.of(port));
      Map<String, Object> service = Json.map();
      service.put("apiVersion", "v1");
      service.put("kind", "Service");
      service.put("metadata", metadata);
      service.put("spec", spec);
      return List.of(Json.copyMap(service));
    }

    @Override
    public Map<String, String> trainingObjectLabels(JobOptions options) {
      return Map.of();
    }

    private Map<String, Object> selector(String jobName) {
      Map<String, Object> labels = Json.map();
      labels.put(Metadata.JOB_NAME, jobName);
      labels.put(ROLE_LABEL, ROLE);
      return labels;
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
    return other instanceof ServingDeployer that && options().equals(that.options())
        && replicas == that.replicas && modelName.equals(that.modelName);
  }

  @Override
  public int hashCode() {
    return Objects.hash(options(), replicas, modelName);
  }

  @Override
  public String toString() {
    return "Serving[" + describeOptions() + ", replicas=" + replicas
        + modelName.map(m -> ", model=" + m).orElse("") + "]";
  }
}

package dev.fairing4j.deployer.serving;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Deployer;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.EndpointDeployer;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
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
import dev.fairing4j.deployer.job.internal.NamedPort;
import dev.fairing4j.deployer.job.internal.ReplicaSlot;
import dev.fairing4j.deployer.job.internal.ServedModel;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A KServe {@code serving.kserve.io/v1beta1} InferenceService, as Kubeflow Fairing's
 * {@code kfserving} deployer made one: by default its predictor is the pipeline's image (the
 * predictor's model server as a custom container {@value ServingDeployer#CONTAINER} on port
 * 8080, probed on its readiness path); with {@link #storedModel(String, String)} it is a model
 * KServe serves with a runtime of its own ({@code modelFormat} and a {@code storageUri} such as
 * {@code pvc://traindb-models-claim/mnist}), and nothing is built. {@link #minReplicas(int)},
 * {@link #maxReplicas(int)}, {@link #canaryTrafficPercent(int)} (Fairing's canary: the share of
 * requests the newest revision gets) and {@link #deploymentMode(DeploymentMode)} are KServe's.
 * Pod mutators apply to the predictor (resources, GPUs, claims, node selectors).
 *
 * <p>A cluster without KServe answers with the command that installs it. On
 * {@code Clusters.local()} an InferenceService is refused: serve there with
 * {@code Deployers.serving(..)}. An immutable value: obtain one from
 * {@code Deployers.inferenceService(name)}.
 */
public final class InferenceServiceDeployer extends JobDeployer<InferenceServiceDeployer> {
  static {
    DeployerKinds.register(InferenceServiceDeployer.class, InferenceServiceDeployer::kind);
  }

  /** The API version rendered, KServe v0.19's. */
  public static final String API_VERSION = "serving.kserve.io/v1beta1";
  /** The label KServe puts on the predictor's pods. */
  public static final String POD_LABEL = "serving.kserve.io/inferenceservice";
  // KServe names the predictor's Service <name>-predictor; a Service name is a DNS label.
  private static final String PREDICTOR_SUFFIX = "-predictor";
  // Where a model's files come from (KServe's storage initializer): a claim, a bucket, a URL.
  private static final Pattern STORAGE_URI =
      Pattern.compile("(pvc|s3|gs|hdfs|webhdfs|oci|hf|https?)://\\S+");
  // The image rendered for a stored model, whose container KServe's runtime fills in; dropped
  // from the manifest, so never pulled.
  private static final ImageRef NO_IMAGE = ImageRef.parse("kserve.invalid/stored-model");

  /** A model KServe serves with its own runtime. */
  private record StoredModel(String format, String storageUri, Optional<String> runtime) {}

  private final Optional<StoredModel> stored;
  private final int minReplicas;
  private final Optional<Integer> maxReplicas;
  private final Optional<Integer> canaryTrafficPercent;
  private final Optional<DeploymentMode> mode;
  private final Optional<String> modelName;

  private InferenceServiceDeployer(JobOptions options, Optional<StoredModel> stored,
      int minReplicas, Optional<Integer> maxReplicas, Optional<Integer> canaryTrafficPercent,
      Optional<DeploymentMode> mode, Optional<String> modelName) {
    super(options);
    this.stored = stored;
    this.minReplicas = minReplicas;
    this.maxReplicas = maxReplicas;
    this.canaryTrafficPercent = canaryTrafficPercent;
    this.mode = mode;
    this.modelName = modelName;
  }

  /**
   * An InferenceService called {@code name} whose predictor is the pipeline's image, one
   * replica, KServe's default deployment mode, in namespace {@code default}.
   *
   * @throws InvalidInputException when the name is not a DNS-1035 label
   */
  public static InferenceServiceDeployer named(String name) {
    return new InferenceServiceDeployer(JobOptions.named(name), Optional.empty(), 1,
        Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }

  /**
   * Serves a stored model with KServe's runtime for {@code format} ({@code pytorch},
   * {@code sklearn}, {@code xgboost}, {@code onnx}, {@code tensorflow}, {@code triton},
   * {@code huggingface}, ...) from {@code storageUri}, e.g.
   * {@code pvc://traindb-models-claim/mnist}; nothing is built, and the pipeline's predictor is
   * not used. The model answers to the InferenceService's name.
   */
  public InferenceServiceDeployer storedModel(String format, String storageUri) {
    Validators.requireText("storedModel format", format);
    Validators.requireText("storageUri", storageUri);
    if (!STORAGE_URI.matcher(storageUri).matches()) {
      throw InvalidInputException.of("storageUri", "'" + storageUri + "' is not a storage URI"
          + " KServe reads", "use pvc://<claim>/<path>, s3://<bucket>/<path>, gs://..., or"
          + " https://...");
    }
    return new InferenceServiceDeployer(options(), Optional.of(new StoredModel(format,
        storageUri, Optional.empty())), minReplicas, maxReplicas, canaryTrafficPercent, mode,
        modelName);
  }

  /** For a stored model: the ServingRuntime to use instead of the one KServe picks. */
  public InferenceServiceDeployer runtime(String runtime) {
    Validators.dns1123Subdomain("runtime", runtime);
    StoredModel model = stored.orElseThrow(() -> InvalidInputException.of("runtime",
        "applies to a stored model only", "call storedModel(format, storageUri) first"));
    return new InferenceServiceDeployer(options(), Optional.of(new StoredModel(model.format(),
        model.storageUri(), Optional.of(runtime))), minReplicas, maxReplicas,
        canaryTrafficPercent, mode, modelName);
  }

  /** The fewest predictor replicas (default 1; 0 lets Serverless scale to zero). */
  public InferenceServiceDeployer minReplicas(int count) {
    Validators.atLeast("minReplicas", count, 0);
    return new InferenceServiceDeployer(options(), stored, count, maxReplicas,
        canaryTrafficPercent, mode, modelName);
  }

  /** The most predictor replicas the autoscaler may run. */
  public InferenceServiceDeployer maxReplicas(int count) {
    Validators.atLeast("maxReplicas", count, 1);
    return new InferenceServiceDeployer(options(), stored, minReplicas, Optional.of(count),
        canaryTrafficPercent, mode, modelName);
  }

  /**
   * Fairing's canary: the percentage of requests (0-100) the newest revision gets while the
   * previous one serves the rest; applying the service again with 100 promotes it.
   */
  public InferenceServiceDeployer canaryTrafficPercent(int percent) {
    if (percent < 0 || percent > 100) {
      throw InvalidInputException.of("canaryTrafficPercent", percent + " is not a percentage",
          "use 0 to 100");
    }
    return new InferenceServiceDeployer(options(), stored, minReplicas, maxReplicas,
        Optional.of(percent), mode, modelName);
  }

  /** RawDeployment (no Knative needed) or Serverless; unset, the cluster's default. */
  public InferenceServiceDeployer deploymentMode(DeploymentMode newMode) {
    return new InferenceServiceDeployer(options(), stored, minReplicas, maxReplicas,
        canaryTrafficPercent, Optional.of(Objects.requireNonNull(newMode, "deploymentMode")),
        modelName);
  }

  /** The model name, as for {@link ServingDeployer#modelName(String)}; custom containers only. */
  public InferenceServiceDeployer modelName(String name) {
    ServingChecks.check(name);
    return new InferenceServiceDeployer(options(), stored, minReplicas, maxReplicas,
        canaryTrafficPercent, mode, Optional.of(name));
  }

  /** Whether the predictor is a stored model served by KServe's runtime. */
  public boolean servesStoredModel() {
    return stored.isPresent();
  }

  @Override
  protected InferenceServiceDeployer withOptions(JobOptions newOptions) {
    return new InferenceServiceDeployer(newOptions, stored, minReplicas, maxReplicas,
        canaryTrafficPercent, mode, modelName);
  }

  @Override
  protected Set<ReplicaType> replicaTypes() {
    return Set.of();
  }

  @Override
  protected String kindName() {
    return "an InferenceService";
  }

  /** The steps {@code Pipeline.serve()} calls: validate, render, create the InferenceService. */
  @Override
  public Deployer asDeployer() {
    return new EndpointSteps(this, kindName(), shape(this));
  }

  /**
   * For a stored model, which needs no pipeline: validates, then creates the InferenceService
   * on the deployer's cluster and returns its endpoint.
   *
   * @throws InvalidInputException for a custom container (serve it through a pipeline), or bad
   *     settings, before any request
   */
  public Endpoint serve() {
    EndpointDeployer steps = requireStored("serve()");
    steps.validateTarget();
    return steps.plan(BuildContext.empty()).serve(Optional.empty(), ProgressListener.NONE);
  }

  /** For a stored model: the InferenceService {@link #serve()} would create, as YAML. */
  public String dryRun() {
    EndpointDeployer steps = requireStored("dryRun()");
    return steps.plan(BuildContext.empty()).render(Optional.empty());
  }

  private EndpointDeployer requireStored(String call) {
    if (stored.isEmpty()) {
      throw InvalidInputException.of(call, jobName() + " serves the pipeline's image",
          "serve it with Fairing.pipeline().preprocessor(Preprocessors.predictor(..))"
              + ".builder(..).deployer(this).serve(), or call storedModel(format, storageUri)");
    }
    return (EndpointDeployer) asDeployer();
  }

  private static EndpointSteps.Shape shape(InferenceServiceDeployer deployer) {
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
        return deployer.stored.isPresent() ? deployer.jobName()
            : ServingChecks.of(context, deployer.modelName, deployer.jobName());
      }

      @Override
      public boolean needsImage() {
        return deployer.stored.isEmpty();
      }

      @Override
      public Optional<ImageRef> imageWhenNone() {
        return deployer.stored.map(model -> NO_IMAGE);
      }

      @Override
      public EndpointSteps.Shape with(JobDeployer<?> changed) {
        return shape((InferenceServiceDeployer) changed);
      }
    };
  }

  private JobKind kind(BuildContext context) {
    Optional<String> model = stored.isPresent() ? Optional.empty()
        : Optional.of(ServingChecks.of(context, modelName, jobName()));
    return new Kind(model, stored.isEmpty() && ServingChecks.runsModelServer(context));
  }

  private final class Kind implements JobKind {
    private final Optional<String> model;
    private final boolean modelServer;

    Kind(Optional<String> model, boolean modelServer) {
      this.model = model;
      this.modelServer = modelServer;
    }

    @Override
    public String apiVersion() {
      return API_VERSION;
    }

    @Override
    public String kind() {
      return "InferenceService";
    }

    @Override
    public String containerName() {
      return ServingDeployer.CONTAINER;
    }

    @Override
    public Optional<NamedPort> port() {
      return stored.isPresent() ? Optional.empty()
          : Optional.of(new NamedPort(ServingDeployer.PORT_NAME, ServingDeployer.PORT));
    }

    @Override
    public List<ReplicaSlot> slots() {
      return List.of(new ReplicaSlot(Optional.empty(), Math.max(1, minReplicas),
          RestartPolicy.ALWAYS));
    }

    @Override
    public int reservedNameSuffix() {
      return PREDICTOR_SUFFIX.length();
    }

    @Override
    public void validate(JobOptions options) {
      options.cluster().filter(cluster -> ClusterBackends.of(cluster)
          .filter(ClusterBackend::servesInferenceServices).isEmpty()).ifPresent(cluster -> {
            throw InvalidInputException.of("cluster", "an InferenceService needs KServe on a"
                + " Kubernetes cluster, and " + cluster.describe() + " is not one",
                "serve on Clusters.kubernetes(), or use Deployers.serving(..) here");
          });
      ServingChecks.refuseJobSettings(options, "Deployers.inferenceService(..)");
      maxReplicas.filter(max -> max < minReplicas).ifPresent(max -> {
        throw InvalidInputException.of("maxReplicas", max + " is below minReplicas "
            + minReplicas, "raise maxReplicas(..) to at least " + minReplicas);
      });
      if (stored.isPresent() && modelName.isPresent()) {
        throw InvalidInputException.of("modelName", "a stored model answers to the"
            + " InferenceService's name, " + jobName(), "drop .modelName(..), or name the"
            + " InferenceService after the model");
      }
      ServingChecks.refuseServerArgs(modelServer, options.args());
      if (stored.isPresent() && !options.args().isEmpty()) {
        throw InvalidInputException.of("args", "go to a custom container; KServe's runtime"
            + " has its own command line", "drop .args(..) for a stored model");
      }
    }

    @Override
    public List<Map<String, Object>> synthesizedEnv(String jobName, String namespace) {
      if (stored.isPresent()) {
        return List.of();
      }
      Map<String, Object> port = Json.map();
      port.put("name", "PORT");
      port.put("value", String.valueOf(ServingDeployer.PORT));
      return List.of(port);
    }

    @Override
    public Map<String, Object> spec(String jobName, JobOptions options,
        List<Map<String, Object>> templates) {
      // The predictor is a pod spec with KServe's fields beside it; pods get the
      // InferenceService's own labels and annotations from KServe.
      Map<String, Object> predictor = Json.copyMap(Json.child(templates.get(0), "spec"));
      Map<String, Object> container = Json.copyMap(onlyContainer(predictor));
      if (stored.isPresent()) {
        predictor.remove("containers");
        predictor.put("model", modelSpec(stored.get(), container));
      } else {
        model.ifPresent(name -> container.put("readinessProbe",
            ServedModel.readinessProbe(name, ServingDeployer.PORT)));
        predictor.put("containers", List.of(container));
      }
      predictor.put("minReplicas", minReplicas);
      maxReplicas.ifPresent(max -> predictor.put("maxReplicas", max));
      canaryTrafficPercent.ifPresent(p -> predictor.put("canaryTrafficPercent", p));
      Map<String, Object> spec = Json.map();
      spec.put("predictor", predictor);
      return spec;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> onlyContainer(Map<String, Object> podSpec) {
      return (Map<String, Object>) Json.list(podSpec, "containers").get(0);
    }

    // KServe's ModelSpec is a container without name, image or command: the runtime's.
    private Map<String, Object> modelSpec(StoredModel stored, Map<String, Object> container) {
      Map<String, Object> spec = Json.map();
      spec.put("modelFormat", Map.of("name", stored.format()));
      stored.runtime().ifPresent(runtime -> spec.put("runtime", runtime));
      spec.put("storageUri", stored.storageUri());
      for (String field : List.of("env", "envFrom", "resources", "volumeMounts",
          "securityContext")) {
        Object value = container.get(field);
        if (value != null) {
          spec.put(field, value);
        }
      }
      return spec;
    }

    @Override
    public Map<String, String> trainingObjectAnnotations() {
      return mode.map(m -> Map.of(DeploymentMode.ANNOTATION, m.value())).orElse(Map.of());
    }

    @Override
    public Map<String, String> trainingObjectLabels(JobOptions options) {
      return Map.of();
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof InferenceServiceDeployer that && options().equals(that.options())
        && stored.equals(that.stored) && minReplicas == that.minReplicas
        && maxReplicas.equals(that.maxReplicas)
        && canaryTrafficPercent.equals(that.canaryTrafficPercent) && mode.equals(that.mode)
        && modelName.equals(that.modelName);
  }

  @Override
  public int hashCode() {
    return Objects.hash(options(), stored, minReplicas, maxReplicas, canaryTrafficPercent, mode,
        modelName);
  }

  @Override
  public String toString() {
    return "InferenceService[" + describeOptions()
        + stored.map(s -> ", model=" + s.format() + " " + s.storageUri()).orElse("")
        + ", minReplicas=" + minReplicas + maxReplicas.map(m -> ", maxReplicas=" + m).orElse("")
        + canaryTrafficPercent.map(p -> ", canary=" + p + "%").orElse("")
        + mode.map(m -> ", mode=" + m.value()).orElse("") + "]";
  }
}

package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.Operation;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.trainer.TrainerApi;
import dev.fairing4j.deployer.trainer.internal.TorchCommand;
import dev.fairing4j.deployer.trainer.internal.TrainJobRules;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import dev.fairing4j.deployer.trainer.internal.TrainerDialect;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What is checked on the cluster before a TrainJob is created, so that nothing is created for a
 * job that cannot run, and the error says why:
 *
 * <ol>
 *   <li>the TrainJob shape the cluster's Trainer takes, read once per connection from the API
 *       server's published OpenAPI schema ({@code /openapi/v3}, readable by every authenticated
 *       user; the CRD itself where that is missing): a v2.3-shaped job is turned into v2.0's
 *       when the deployer lets it ({@link TrainerApi#AUTO}), else the mismatch is an error;
 *   <li>the runtime exists (else the error lists the runtimes that do, or says how to install
 *       the Trainer when its CRDs are not served); with it, that it has the jobs the TrainJob
 *       needs ({@code node} for fairing4j's patches, the initializers it names), that the JobSet's
 *       pod names fit in 63 characters for every job the runtime has, and that torchrun is used
 *       exactly where the runtime's torch plugin sets {@code PET_*}.
 * </ol>
 *
 * <p>Reads that RBAC refuses (a user without {@code get} on runtimes) skip their check: the
 * Trainer's webhook still refuses what is wrong, only less clearly.
 */
public final class TrainJobPreflight {
  private static final Logger LOG = LoggerFactory.getLogger(TrainJobPreflight.class);
  private static final String OPENAPI = "/openapi/v3";
  private static final String GROUP_VERSION = "apis/" + TrainJobs.API_VERSION;
  private static final ResourceRef TRAINJOBS = ResourceRef.of(TrainJobs.API_VERSION,
      TrainJobs.KIND);
  private static final ResourceRef CRDS = ResourceRef.of("apiextensions.k8s.io/v1",
      "CustomResourceDefinition");
  private static final String FACT = "trainer.kubeflow.org/TrainJob shape";

  /** The fields in the cluster's TrainJob spec that tell the Trainer versions apart. */
  enum Shape {
    /** v2.2, v2.3: {@code runtimePatches}. */
    RUNTIME_PATCHES,
    /** v2.0: {@code podSpecOverrides}, {@code labels}, {@code annotations}. */
    POD_SPEC_OVERRIDES,
    /** Neither (v2.1's {@code podTemplateOverrides}): pod settings cannot be sent. */
    NEITHER
  }

  private final KubeRest rest;
  private final Function<Supplier<Optional<Shape>>, Optional<Shape>> cache;

  /**
   * Checks through {@code rest}; {@code cache} remembers the cluster's shape per connection
   * (it is handed the reading, and answers from memory once it has one).
   */
  public TrainJobPreflight(KubeRest rest, KubeConnection connection) {
    this(rest, read -> connection.fact(FACT, read));
  }

  TrainJobPreflight(KubeRest rest, Function<Supplier<Optional<Shape>>, Optional<Shape>> cache) {
    this.rest = rest;
    this.cache = cache;
  }

  /**
   * The job to submit: {@code job} after the checks, its TrainJob in the cluster's shape.
   *
   * @throws InvalidInputException when the TrainJob cannot run on this cluster as configured
   * @throws KubernetesApiException when the runtime does not exist or the Trainer is missing
   */
  public RenderedJob prepare(RenderedJob job, SubmitOptions options) {
    Map<String, Object> trainJob = JsonTree.mutableCopy(job.trainingObject());
    trainJob = shaped(trainJob, cache.apply(this::detect), options.adaptTrainerApi());
    // The runtime checks read the job as rendered: its shape does not matter to them.
    runtime(job, trainJob).ifPresent(runtime -> checkAgainst(job.trainingObject(), runtime,
        job));
    List<Map<String, Object>> objects = new ArrayList<>(job.objects());
    objects.set(objects.size() - 1, trainJob);
    return new RenderedJob(job.kind(), job.name(), job.namespace(), objects);
  }

  // ---- the TrainJob's shape ------------------------------------------------------------------

  private static Map<String, Object> shaped(Map<String, Object> trainJob, Optional<Shape> served,
      boolean adapt) {
    Optional<TrainerApi> rendered = TrainerDialect.shapeOf(trainJob);
    if (served.isEmpty() || rendered.isEmpty()) {
      return trainJob; // unknown, or a job every version takes; a strict create says the rest
    }
    switch (served.get()) {
      case RUNTIME_PATCHES -> {
        if (rendered.get() == TrainerApi.V2_0) {
          throw mismatch("v2.3 (runtimePatches)", "v2.0 (.trainerApi(TrainerApi.V2_0))",
              "use .trainerApi(TrainerApi.AUTO) or V2_3");
        }
        return trainJob;
      }
      case POD_SPEC_OVERRIDES -> {
        if (rendered.get() == TrainerApi.V2_0) {
          return trainJob;
        }
        if (!adapt) {
          throw mismatch("v2.0 (podSpecOverrides)", "v2.3 (.trainerApi(TrainerApi.V2_3))",
              "use .trainerApi(TrainerApi.AUTO) or V2_0");
        }
        LOG.debug("The cluster runs Trainer v2.0: sending {} with podSpecOverrides",
            JsonTree.string(trainJob, "metadata", "name").orElse("the TrainJob"));
        return TrainerDialect.toV20(trainJob);
      }
      default -> {
        throw InvalidInputException.of("trainerApi", "the cluster's TrainJob CRD has neither"
            + " runtimePatches (Trainer v2.2+) nor podSpecOverrides (v2.0), so the job's pod"
            + " settings (volumes, labels, node selector...) cannot be sent; Trainer v2.1 is not"
            + " supported", "upgrade the Trainer to v2.3, or run a PyTorchJob instead");
      }
    }
  }

  private static InvalidInputException mismatch(String served, String rendered, String fix) {
    return InvalidInputException.of("trainerApi", "the cluster's TrainJob CRD is Trainer "
        + served + ", but the job is rendered for " + rendered, fix);
  }

  /** The cluster's TrainJob shape; empty when it cannot be read (yet). */
  Optional<Shape> detect() {
    try {
      Optional<Map<String, Object>> spec = fromOpenApi().or(this::fromCrd);
      return spec.map(TrainJobPreflight::shapeOf);
    } catch (RuntimeException e) {
      LOG.debug("Could not read the cluster's TrainJob schema: {}", e.getMessage());
      return Optional.empty();
    }
  }

  static Shape shapeOf(Map<String, Object> specProperties) {
    return specProperties.containsKey("runtimePatches") ? Shape.RUNTIME_PATCHES
        : specProperties.containsKey("podSpecOverrides") ? Shape.POD_SPEC_OVERRIDES
        : Shape.NEITHER;
  }

  /** The properties of the TrainJob's spec as the API server publishes them. */
  private Optional<Map<String, Object>> fromOpenApi() {
    Operation operation = Operation.onCollection("get", TRAINJOBS, Optional.empty());
    KubeRest.Response root = rest.get(OPENAPI, operation);
    if (!root.ok()) {
      return Optional.empty();
    }
    Optional<String> url = JsonTree.string(root.json(), "paths", GROUP_VERSION,
        "serverRelativeURL");
    if (url.isEmpty()) {
      return Optional.empty(); // not served, or not published yet right after an install
    }
    // The hash only lets caches keep the answer; the path alone gives the same document.
    String path = url.get().contains("?") ? url.get().substring(0, url.get().indexOf('?'))
        : url.get();
    KubeRest.Response document = rest.get(path, operation);
    if (!document.ok()) {
      return Optional.empty();
    }
    for (Object schema : JsonTree.map(document.json(), "components", "schemas").values()) {
      for (Map<String, Object> gvk : JsonTree.maps(schema, "x-kubernetes-group-version-kind")) {
        if (TrainJobs.KIND.equals(gvk.get("kind")) && TrainJobs.GROUP.equals(gvk.get("group"))) {
          Map<String, Object> spec = JsonTree.map(schema, "properties", "spec", "properties");
          return spec.isEmpty() ? Optional.empty() : Optional.of(spec);
        }
      }
    }
    return Optional.empty();
  }

  /** The same from the CRD, for servers that publish no OpenAPI v3 (needs RBAC on CRDs). */
  private Optional<Map<String, Object>> fromCrd() {
    try {
      return rest.find(CRDS, Optional.empty(), TRAINJOBS.qualifiedName()).flatMap(crd -> {
        for (Map<String, Object> version : JsonTree.maps(crd, "spec", "versions")) {
          if ("v1alpha1".equals(version.get("name"))) {
            Map<String, Object> spec = JsonTree.map(version, "schema", "openAPIV3Schema",
                "properties", "spec", "properties");
            return spec.isEmpty() ? Optional.empty() : Optional.of(spec);
          }
        }
        return Optional.empty();
      });
    } catch (KubernetesApiException e) {
      LOG.debug("Could not read the TrainJob CRD: {}", e.getMessage());
      return Optional.empty();
    }
  }

  // ---- the runtime ----------------------------------------------------------------------------

  /**
   * The runtime the TrainJob names; empty when RBAC does not let us read it.
   *
   * @throws KubernetesApiException NOT_FOUND listing the runtimes there are, or
   *     CRD_NOT_INSTALLED with the Trainer's install command
   */
  private Optional<Map<String, Object>> runtime(RenderedJob job, Map<String, Object> trainJob) {
    String kind = JsonTree.string(trainJob, "spec", "runtimeRef", "kind")
        .orElse(TrainJobs.CLUSTER_RUNTIME);
    String name = JsonTree.string(trainJob, "spec", "runtimeRef", "name").orElse("");
    ResourceRef resource = ResourceRef.of(TrainJobs.API_VERSION, kind);
    Optional<String> namespace = resource.namespaced() ? Optional.of(job.namespace())
        : Optional.empty();
    Optional<Map<String, Object>> runtime;
    try {
      runtime = rest.find(resource, namespace, name);
    } catch (KubernetesApiException e) {
      if (e.problem() == Problem.FORBIDDEN) {
        LOG.debug("Not allowed to read {} {}; the Trainer's webhook checks it instead: {}",
            kind, name, e.getMessage());
        return Optional.empty();
      }
      throw e;
    }
    if (runtime.isEmpty()) {
      throw missingRuntime(job, kind, name);
    }
    return runtime;
  }

  private KubernetesApiException missingRuntime(RenderedJob job, String kind, String name) {
    List<String> cluster = names(ResourceRef.of(TrainJobs.API_VERSION, TrainJobs.CLUSTER_RUNTIME),
        Optional.empty());
    List<String> namespaced = names(ResourceRef.of(TrainJobs.API_VERSION,
        TrainJobs.NAMESPACED_RUNTIME), Optional.of(job.namespace()));
    String there = (cluster.isEmpty() ? "no ClusterTrainingRuntimes"
        : "ClusterTrainingRuntimes " + String.join(", ", cluster))
        + (namespaced.isEmpty() ? " and no TrainingRuntimes in namespace " + job.namespace()
            : "; TrainingRuntimes in namespace " + job.namespace() + ": "
                + String.join(", ", namespaced));
    String hint;
    if (!cluster.isEmpty()) {
      hint = "pick one with .runtime(\"" + cluster.get(0) + "\")"
          + (namespaced.isEmpty() ? "" : " or .namespacedRuntime(\"" + namespaced.get(0)
              + "\")") + ", or create " + kind + " " + name;
    } else if (!namespaced.isEmpty()) {
      hint = "pick one with .namespacedRuntime(\"" + namespaced.get(0) + "\"), or create "
          + kind + " " + name;
    } else {
      hint = "install the Trainer's runtimes: kubectl apply --server-side -k"
          + " \"github.com/kubeflow/trainer.git/manifests/overlays/runtimes?ref=v2.3.0\"";
    }
    return new KubernetesApiException(Problem.NOT_FOUND, "submit TrainJob",
        job.namespace() + "/" + job.name(), kind + " '" + name + "' does not exist (the"
            + " cluster has " + there + ")", hint, 404, null);
  }

  private List<String> names(ResourceRef resource, Optional<String> namespace) {
    try {
      return rest.list(resource, namespace, Optional.empty(), Optional.empty()).stream()
          .map(o -> JsonTree.string(o, "metadata", "name").orElse("")).sorted()
          .collect(Collectors.toList());
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  private static void checkAgainst(Map<String, Object> trainJob, Map<String, Object> runtime,
      RenderedJob job) {
    String runtimeName = JsonTree.string(runtime, "metadata", "name").orElse("?");
    Map<String, Integer> jobs = new LinkedHashMap<>();
    Map<String, List<String>> containers = new LinkedHashMap<>();
    int nodes = JsonTree.integer(trainJob, "spec", "trainer", "numNodes")
        .or(() -> JsonTree.integer(runtime, "spec", "mlPolicy", "numNodes")).orElse(1);
    for (Map<String, Object> replicated : JsonTree.maps(runtime, "spec", "template", "spec",
        "replicatedJobs")) {
      String name = JsonTree.string(replicated, "name").orElse("");
      boolean trainer = name.equals(TrainJobs.NODE) || "trainer".equals(JsonTree.string(
          replicated, "template", "metadata", "labels",
          "trainer.kubeflow.org/trainjob-ancestor-step").orElse(""));
      jobs.put(name, trainer ? nodes : JsonTree.integer(replicated, "template", "spec",
          "parallelism").orElse(1));
      containers.put(name, JsonTree.maps(replicated, "template", "spec", "template", "spec",
          "containers").stream().map(c -> JsonTree.string(c, "name").orElse("")).toList());
    }
    boolean patched = !JsonTree.maps(trainJob, "spec", "runtimePatches").isEmpty()
        || !JsonTree.maps(trainJob, "spec", "podSpecOverrides").isEmpty();
    if (patched && !containers.getOrDefault(TrainJobs.NODE, List.of()).contains(TrainJobs.NODE)) {
      throw InvalidInputException.of("runtime", "runtime " + runtimeName + " has no replicated"
          + " job 'node' with a container 'node' (its jobs: " + containers + "), which the"
          + " job's pod settings (labels, volumes, mutators) patch, as in the shipped runtimes",
          "use a runtime whose trainer job and container are named node, e.g. "
              + TrainJobs.DEFAULT_RUNTIME);
    }
    for (String step : List.of("dataset", "model")) {
      String needed = step + "-initializer";
      if (JsonTree.at(trainJob, "spec", "initializer", step).isPresent()
          && !jobs.containsKey(needed)) {
        throw InvalidInputException.of(step + "Initializer", "runtime " + runtimeName
            + " has no " + needed + " job (its jobs: " + jobs.keySet() + "), so the Trainer"
            + " cannot fetch the " + step, "use a runtime with a " + needed + " job, or drop"
                + " ." + step + "Initializer(..)");
      }
    }
    TrainJobRules.checkNameLength(job.name(), TrainJobRules.longestPodSuffix(jobs), 0);
    List<String> command = JsonTree.at(trainJob, "spec", "trainer", "command")
        .filter(List.class::isInstance).map(c -> ((List<?>) c).stream().map(String::valueOf)
            .toList()).orElse(List.of());
    boolean torch = JsonTree.at(runtime, "spec", "mlPolicy", "torch").isPresent();
    boolean torchrun = TorchCommand.runsTorchrun(command);
    if (torchrun && !torch) {
      throw InvalidInputException.of("torchrun", "runtime " + runtimeName + " is not a torch"
          + " runtime (it has no mlPolicy.torch), so no PET_* variables reach torchrun and each"
          + " node would train alone", "call .torchrun(false) on the deployer, or use a torch"
              + " runtime such as " + TrainJobs.DEFAULT_RUNTIME);
    }
    if (torch && !torchrun && !command.isEmpty() && nodes > 1) {
      LOG.warn("{} runs {} on {} nodes of torch runtime {} without torchrun: the PET_*"
          + " variables the runtime sets are read by torchrun only (.torchrun(true))",
          job.name(), command, nodes, runtimeName);
    }
  }
}

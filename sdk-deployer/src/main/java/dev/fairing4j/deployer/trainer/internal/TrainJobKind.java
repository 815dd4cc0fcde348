package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.job.internal.JobKind;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.NamedPort;
import dev.fairing4j.deployer.job.internal.Names;
import dev.fairing4j.deployer.job.internal.Quantities;
import dev.fairing4j.deployer.job.internal.ReplicaSlot;
import dev.fairing4j.deployer.trainer.Initializer;
import dev.fairing4j.deployer.trainer.TrainerApi;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A TrainJob as {@link dev.fairing4j.deployer.job.internal.JobRendering} renders it. The shared
 * machinery builds one pod template for the {@code node} job (container {@code node}, the
 * image, the preprocessor's command, args, env, labels) and runs the mutators over it, so every
 * {@code Mutators} factory works as for the other kinds; {@link #spec} then translates the
 * finished template into what the TrainJob API takes:
 *
 * <ul>
 *   <li>image, command (through torchrun on a torch runtime), args and env into
 *       {@code spec.trainer}; the container's resources into {@code resourcesPerNode}, so
 *       {@code Mutators.resources(..)} and {@code gpus(..)} mean per node;
 *   <li>pod labels and annotations, volumes and the container's mounts, image-pull Secrets,
 *       node selector, tolerations, affinity, service account, security contexts, scheduling
 *       gates and the termination grace period into one runtime patch on the {@code node} job
 *       (Trainer v2.3; {@link TrainerDialect} turns it into v2.0's {@code podSpecOverrides});
 *   <li>anything else a mutator set (a sidecar, an init container, a PriorityClass, probes,
 *       ports, host networking...) fails with an {@link InvalidInputException} naming the field
 *       and saying where it can go instead (a runtime of one's own).
 * </ul>
 */
public final class TrainJobKind implements JobKind {
  /** Pod spec fields a v2.3 runtime patch takes (besides containers). */
  static final Set<String> PATCH_POD_FIELDS = Set.of("serviceAccountName", "volumes",
      "imagePullSecrets", "securityContext", "nodeSelector", "affinity", "tolerations",
      "schedulingGates", "terminationGracePeriodSeconds");
  /** Container fields a v2.3 runtime patch takes (besides name and env, which go elsewhere). */
  static final Set<String> PATCH_CONTAINER_FIELDS = Set.of("volumeMounts", "securityContext");
  /** The pod spec's field order in a patch, as kubectl shows pod specs. */
  private static final List<String> POD_ORDER = List.of("serviceAccountName",
      "terminationGracePeriodSeconds", "securityContext", "imagePullSecrets", "containers",
      "volumes", "nodeSelector", "affinity", "tolerations", "schedulingGates");
  private static final String WHERE_INSTEAD = "set it in a runtime of your own (a"
      + " TrainingRuntime in the job's namespace, then .namespacedRuntime(\"<name>\"))";

  private final TrainJobSettings settings;
  private final BuildContext context;

  /** The kind for {@code settings}, rendering the code of {@code context}. */
  public TrainJobKind(TrainJobSettings settings, BuildContext context) {
    this.settings = settings;
    this.context = context;
  }

  @Override
  public String apiVersion() {
    return TrainJobs.API_VERSION;
  }

  /** With {@link TrainerApi#AUTO} the TrainJob is sent in the shape the cluster's Trainer takes. */
  @Override
  public boolean adaptTrainerApi() {
    return settings.api() == TrainerApi.AUTO;
  }

  @Override
  public String kind() {
    return TrainJobs.KIND;
  }

  @Override
  public String containerName() {
    return TrainJobs.NODE;
  }

  /** None: the torch plugin declares the rendezvous port itself. */
  @Override
  public Optional<NamedPort> port() {
    return Optional.empty();
  }

  /** The {@code node} job's pods; their restart policy is the runtime's (JobSet: OnFailure). */
  @Override
  public List<ReplicaSlot> slots() {
    return List.of(new ReplicaSlot(Optional.empty(), settings.numNodes(),
        RestartPolicy.ON_FAILURE));
  }

  /** The JobSet's pods are {@code <job>-<rjob>-0-<index>-xxxxx}; see {@link TrainJobRules}. */
  @Override
  public int reservedNameSuffix() {
    return TrainJobRules.longestPodSuffix(replicatedJobs()).length() + TrainJobs.POD_SUFFIX;
  }

  /** The replicated jobs this TrainJob is known to have, with their pod counts. */
  public Map<String, Integer> replicatedJobs() {
    Map<String, Integer> jobs = new LinkedHashMap<>();
    jobs.put(TrainJobs.NODE, settings.numNodes());
    settings.dataset().ifPresent(d -> jobs.put(TrainJobs.DATASET_INITIALIZER, 1));
    settings.model().ifPresent(m -> jobs.put(TrainJobs.MODEL_INITIALIZER, 1));
    return jobs;
  }

  @Override
  public void validate(JobOptions options) {
    options.cluster().ifPresent(this::checkCluster);
    TrainJobRules.checkNameLength(options.name(), TrainJobRules.longestPodSuffix(
        replicatedJobs()), options.uniqueName() ? Names.UNIQUE_SUFFIX_LENGTH : 0);
    if (options.backoffLimit().isPresent()) {
      throw InvalidInputException.of("backoffLimit", "a TrainJob has no backoffLimit: its"
          + " runtime's Job template decides how often a node is restarted (the shipped"
          + " runtimes: the JobSet default, 6)", "drop .backoffLimit(..); for another limit use"
          + " a runtime whose node job sets backoffLimit (a TrainingRuntime of your own, then"
          + " .namespacedRuntime(\"<name>\"))");
    }
    if (options.ttlSecondsAfterFinished().isPresent()) {
      throw InvalidInputException.of("ttlSecondsAfterFinished", "a TrainJob has no"
          + " ttlSecondsAfterFinished: it stays until it is deleted",
          "drop .ttlSecondsAfterFinished(..) and delete the job when done (job.delete() or"
              + " TrainingClient.delete(name))");
    }
    TrainJobRules.checkEnvNames(options.env().keySet());
  }

  // This machine knows no runtime objects: an unknown runtime fails before any build.
  private void checkCluster(Cluster cluster) {
    ClusterBackends.of(cluster).ifPresent(backend -> backend.checkTrainerRuntime(
        settings.runtimeKind(), settings.runtime()));
  }

  @Override
  public Map<String, Object> spec(String jobName, JobOptions options,
      List<Map<String, Object>> templates) {
    Map<String, Object> template = Json.copyMap(templates.get(0));
    Map<String, Object> podSpec = Json.child(template, "spec");
    Map<String, Object> container = trainingContainer(podSpec);

    Map<String, Object> spec = Json.map();
    Map<String, Object> runtimeRef = Json.map();
    runtimeRef.put("name", settings.runtime());
    runtimeRef.put("apiGroup", TrainJobs.GROUP);
    runtimeRef.put("kind", settings.runtimeKind());
    spec.put("runtimeRef", runtimeRef);
    spec.put("trainer", trainer(container));
    Map<String, Object> initializer = Json.map();
    settings.dataset().ifPresent(d -> initializer.put("dataset", initializer(d)));
    settings.model().ifPresent(m -> initializer.put("model", initializer(m)));
    spec.put("initializer", initializer);
    spec.put("runtimePatches", runtimePatches(template, podSpec, container));
    if (options.suspend()) {
      spec.put("suspend", true);
    }
    options.activeDeadlineSeconds().ifPresent(v -> spec.put("activeDeadlineSeconds", v));
    settings.managedBy().ifPresent(v -> spec.put("managedBy", v));
    Json.prune(spec);
    return settings.api() == TrainerApi.V2_0 ? TrainerDialect.specForV20(spec) : spec;
  }

  private Map<String, Object> trainingContainer(Map<String, Object> podSpec) {
    Map<String, Object> training = null;
    for (Map<String, Object> container : Json.maps(podSpec.get("containers"))) {
      if (TrainJobs.NODE.equals(container.get("name"))) {
        training = container;
      } else {
        throw InvalidInputException.of("mutate(..)", "added container '" + container.get("name")
            + "' to the TrainJob's pods: a TrainJob takes the trainer container only (its"
            + " runtime decides the others)", "put the sidecar into the runtime: "
            + WHERE_INSTEAD);
      }
    }
    if (!Json.maps(podSpec.get("initContainers")).isEmpty()) {
      throw InvalidInputException.of("mutate(..)", "added init containers to the TrainJob's"
          + " pods: a TrainJob cannot add containers", WHERE_INSTEAD);
    }
    if (training == null) {
      throw InvalidInputException.of("mutate(..)", "removed the trainer container 'node'",
          "do not remove or rename the training container in a mutator");
    }
    return training;
  }

  private Map<String, Object> trainer(Map<String, Object> container) {
    Map<String, Object> trainer = Json.map();
    trainer.put("image", container.get("image"));
    List<String> command = settings.command().orElseGet(() -> strings(container.get("command")));
    trainer.put("command", settings.usesTorchrun()
        ? TorchCommand.withTorchrun(command, settings.torchrun().orElse(false)) : command);
    trainer.put("args", container.get("args"));
    List<Map<String, Object>> env = Json.maps(container.get("env"));
    TrainJobRules.checkEnvNames(env.stream().map(e -> String.valueOf(e.get("name"))).toList());
    trainer.put("env", env);
    trainer.put("numNodes", settings.numNodes());
    trainer.put("numProcPerNode", settings.numProcPerNode().orElseGet(() ->
        Math.max(1, Quantities.gpus(container))));
    trainer.put("resourcesPerNode", container.get("resources"));
    return trainer;
  }

  private static Map<String, Object> initializer(Initializer initializer) {
    Map<String, Object> map = Json.map();
    map.put("storageUri", initializer.storageUri());
    List<Object> env = new ArrayList<>();
    initializer.env().forEach((name, value) -> {
      Map<String, Object> entry = Json.map();
      entry.put("name", name);
      entry.put("value", value);
      env.add(entry);
    });
    map.put("env", env);
    initializer.secret().ifPresent(secret -> map.put("secretRef", Map.of("name", secret)));
    return map;
  }

  /**
   * One patch on the {@code node} job with what the template holds beyond the trainer fields;
   * everything the patch cannot take fails here, before any request.
   */
  private List<Object> runtimePatches(Map<String, Object> template, Map<String, Object> podSpec,
      Map<String, Object> container) {
    Map<String, Object> patchContainer = Json.map();
    patchContainer.put("name", TrainJobs.NODE);
    for (Map.Entry<String, Object> field : container.entrySet()) {
      String key = field.getKey();
      switch (key) {
        case "name", "image", "command", "args", "env", "resources" -> { }
        case "workingDir" -> {
          // The image's working directory is the context's: nothing to say.
          if (!context.workingDir().equals(field.getValue())) {
            throw unsupported("workingDir", "container field workingDir", "run the command"
                + " from the image's working directory, or " + WHERE_INSTEAD);
          }
        }
        default -> {
          if (PATCH_CONTAINER_FIELDS.contains(key)) {
            patchContainer.put(key, field.getValue());
          } else {
            throw unsupported(key, "container field " + key, WHERE_INSTEAD);
          }
        }
      }
    }
    Map<String, Object> patchPod = Json.map();
    for (Map.Entry<String, Object> field : podSpec.entrySet()) {
      String key = field.getKey();
      if (key.equals("containers")) {
        continue;
      }
      if (!PATCH_POD_FIELDS.contains(key)) {
        throw unsupported(key, "pod field " + key, key.equals("priorityClassName")
            ? "with Kueue, give the job a WorkloadPriorityClass (label"
                + " kueue.x-k8s.io/priority-class); otherwise " + WHERE_INSTEAD : WHERE_INSTEAD);
      }
      patchPod.put(key, field.getValue());
    }
    if (patchContainer.size() > 1) {
      patchPod.put("containers", List.of(patchContainer));
    }
    Json.order(patchPod, POD_ORDER);
    Map<String, Object> metadata = Json.map();
    Map<String, Object> given = Json.child(template, "metadata");
    // Sorted, whatever order the mutators added them in, as the job's own metadata is.
    metadata.put("labels", new java.util.TreeMap<>(Json.child(given, "labels")));
    metadata.put("annotations", new java.util.TreeMap<>(Json.child(given, "annotations")));
    Map<String, Object> podTemplate = Json.map();
    podTemplate.put("metadata", metadata);
    podTemplate.put("spec", patchPod);
    Json.prune(podTemplate);
    if (podTemplate.isEmpty()) {
      return List.of();
    }
    Map<String, Object> job = Json.map();
    job.put("name", TrainJobs.NODE);
    job.put("template", Map.of("spec", Map.of("template", podTemplate)));
    Map<String, Object> patch = Json.map();
    patch.put("manager", TrainJobs.PATCH_MANAGER);
    patch.put("trainingRuntimeSpec", Map.of("template", Map.of("spec",
        Map.of("replicatedJobs", List.of(job)))));
    return new ArrayList<>(List.of(Json.copyMap(patch)));
  }

  private static InvalidInputException unsupported(String field, String what, String fix) {
    return InvalidInputException.of(field, "a mutator set " + what + ", which a TrainJob cannot"
        + " carry: Trainer v2.3 takes the trainer's image, command, args, env and resources, and"
        + " pod labels, volumes, mounts, image-pull Secrets, node selector, tolerations,"
        + " affinity, service account, security contexts, scheduling gates and the termination"
        + " grace period as runtime patches", fix);
  }

  private static List<String> strings(Object value) {
    List<String> result = new ArrayList<>();
    if (value instanceof List<?> list) {
      list.forEach(item -> result.add(String.valueOf(item)));
    }
    return result;
  }
}

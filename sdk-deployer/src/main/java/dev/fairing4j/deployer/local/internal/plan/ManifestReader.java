package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Interprets a rendered job, the very objects that would go to the API server, as the training
 * operator (or the Job controller) would: replica specs, containers, volumes, restart and run
 * policy, applying the operator's in-memory defaults where the manifest is silent.
 */
public final class ManifestReader {
  private static final String GPU = "nvidia.com/gpu";

  private ManifestReader() {}

  /**
   * Reads {@code job} into a plan.
   *
   * @throws InvalidInputException when the manifest is not something the local cluster can run,
   *     naming the field
   */
  public static JobPlan read(RenderedJob job) {
    Validators.dns1035Label("job name", job.name());
    Validators.dns1123Label("namespace", job.namespace());
    if (job.objects().isEmpty()) {
      throw InvalidInputException.of("objects", "the rendered job has no objects",
          "render the job with Deployers.pyTorchJob(..), tfJob(..) or batchJob(..)");
    }
    Map<String, Object> object = job.trainingObject();
    String kindName = Maps.string(object, "kind").orElse(job.kind());
    LocalKind kind = LocalKind.of(kindName).orElseThrow(() -> InvalidInputException.of("kind",
        "the local cluster cannot run a " + kindName,
        "run " + String.join(", ", LocalKind.names()) + " locally, or use"
            + " Clusters.kubernetes()"));
    Map<String, Object> spec = Maps.map(object, "spec");
    if (kind == LocalKind.BATCH) {
      return readBatch(job, spec);
    }
    if (kind == LocalKind.TRAINJOB) {
      return TrainJobReader.read(job, spec);
    }
    if (kind == LocalKind.DEPLOYMENT) {
      return readDeployment(job, spec);
    }
    return readOperatorKind(job, kind, kind.operatorKind().orElseThrow(), spec);
  }

  private static JobPlan readOperatorKind(RenderedJob job, LocalKind kind,
      TrainingKind operatorKind, Map<String, Object> spec) {
    String specsPath = "spec." + operatorKind.replicaSpecsField();
    Map<String, Object> replicaSpecs = Maps.map(spec, operatorKind.replicaSpecsField());
    if (replicaSpecs.isEmpty()) {
      throw InvalidInputException.of(specsPath, "is missing or empty",
          "give at least one replica spec");
    }
    for (String type : replicaSpecs.keySet()) {
      if (!kind.replicaTypes().contains(type)) {
        throw InvalidInputException.of(specsPath + "." + type,
            "is not a " + kind.kind() + " replica type",
            "use " + String.join(", ", kind.replicaTypes()));
      }
    }
    Map<String, Integer> replicasByType = new LinkedHashMap<>();
    for (String type : replicaSpecs.keySet()) {
      replicasByType.put(type, count(specsPath + "." + type + ".replicas",
          Maps.at(Maps.map(replicaSpecs, type), "replicas"), 1));
    }
    operatorKind.checkReplicas(specsPath, replicasByType);
    List<JobPlan.Group> groups = new ArrayList<>();
    for (String type : kind.replicaTypes()) {
      if (!replicaSpecs.containsKey(type)) {
        continue;
      }
      String field = specsPath + "." + type;
      Map<String, Object> replicaSpec = Maps.map(replicaSpecs, type);
      int replicas = count(field + ".replicas", Maps.at(replicaSpec, "replicas"), 1);
      RestartPolicy policy = Maps.string(replicaSpec, "restartPolicy")
          .map(p -> RestartPolicy.parse(field + ".restartPolicy", p))
          .orElse(kind.defaultRestartPolicy());
      JobPlan.Pod pod = readPod(field + ".template", Maps.map(replicaSpec, "template"),
          kind.containerName());
      groups.add(new JobPlan.Group(type, replicas, policy, pod));
    }
    Map<String, Object> runPolicy = Maps.map(spec, "runPolicy");
    return new JobPlan(kind, job.name(), job.namespace(), groups,
        Maps.number(runPolicy, "backoffLimit").map(Long::intValue),
        Maps.number(runPolicy, "activeDeadlineSeconds"), JsonTree.node(spec), Optional.empty(),
        cleanPodPolicy(runPolicy), job.objects());
  }

  private static JobPlan readBatch(RenderedJob job, Map<String, Object> spec) {
    Map<String, Object> podSpec = Maps.map(spec, "template", "spec");
    int completions = count("spec.completions", Maps.at(spec, "completions"), 1);
    int parallelism = count("spec.parallelism", Maps.at(spec, "parallelism"), 1);
    if (completions < 1) {
      throw InvalidInputException.of("spec.completions", "is 0", "use at least 1");
    }
    boolean indexed = Maps.string(spec, "completionMode").orElse("NonIndexed").equals("Indexed");
    // A Job's pod restartPolicy is OnFailure or Never; both retry up to backoffLimit, one in
    // place and one with a new pod.
    RestartPolicy policy = Maps.string(podSpec, "restartPolicy")
        .map(p -> RestartPolicy.parse("spec.template.spec.restartPolicy", p))
        .orElse(RestartPolicy.NEVER);
    JobPlan.Pod pod = readPod("spec.template", Maps.map(spec, "template"), Optional.empty());
    JobPlan.Group group = new JobPlan.Group(BatchNames.TYPE, completions, policy, pod);
    return new JobPlan(LocalKind.BATCH, job.name(), job.namespace(), List.of(group),
        Optional.of(Maps.number(spec, "backoffLimit").map(Long::intValue).orElse(6)),
        Maps.number(spec, "activeDeadlineSeconds"), JobPlan.NO_SPEC,
        Optional.of(new JobPlan.Batch(completions, Math.max(1, Math.min(parallelism,
            completions)), indexed)), CleanPodPolicy.RUNNING, job.objects());
  }

  // A Deployment's pods restart Always, without a limit, and never complete; nothing is
  // retried by a controller and there is no deadline.
  private static JobPlan readDeployment(RenderedJob job, Map<String, Object> spec) {
    int replicas = count("spec.replicas", Maps.at(spec, "replicas"), 1);
    JobPlan.Pod pod = readPod("spec.template", Maps.map(spec, "template"),
        LocalKind.DEPLOYMENT.containerName());
    String type = LocalKind.DEPLOYMENT.replicaTypes().get(0);
    return new JobPlan(LocalKind.DEPLOYMENT, job.name(), job.namespace(),
        List.of(new JobPlan.Group(type, replicas, RestartPolicy.ALWAYS, pod)), Optional.empty(),
        Optional.empty(), JobPlan.NO_SPEC, Optional.empty(),
        CleanPodPolicy.RUNNING, job.objects());
  }

  /** {@code runPolicy.cleanPodPolicy}; the operator's default is None. */
  private static CleanPodPolicy cleanPodPolicy(Map<String, Object> runPolicy) {
    String value = Maps.string(runPolicy, "cleanPodPolicy").orElse(CleanPodPolicy.NONE.value());
    for (CleanPodPolicy policy : CleanPodPolicy.values()) {
      if (policy.value().equals(value)) {
        return policy;
      }
    }
    throw InvalidInputException.of("spec.runPolicy.cleanPodPolicy",
        "'" + value + "' is not a clean-pod policy", "use None, Running or All");
  }

  static JobPlan.Pod readPod(String field, Map<String, Object> template,
      Optional<String> containerName) {
    Map<String, Object> podSpec = Maps.map(template, "spec");
    List<Map<String, Object>> containers = Maps.maps(podSpec, "containers");
    if (containers.isEmpty()) {
      throw InvalidInputException.of(field + ".spec.containers", "is empty",
          "give the pod a container" + containerName.map(n -> " named '" + n + "'").orElse(""));
    }
    Map<String, Object> chosen = containerName
        .map(n -> containers.stream().filter(c -> n.equals(c.get("name"))).findFirst()
            .orElseThrow(() -> InvalidInputException.of(field + ".spec.containers",
                "has no container named '" + n + "' (found "
                    + containers.stream().map(c -> String.valueOf(c.get("name"))).toList() + ")",
                "name the training container '" + n + "'; the operator injects its env there")))
        .orElse(containers.get(0));
    List<String> others = containers.stream().filter(c -> c != chosen)
        .map(c -> String.valueOf(c.get("name"))).toList();
    List<JobPlan.Volume> volumes = new ArrayList<>();
    for (Map<String, Object> volume : Maps.maps(podSpec, "volumes")) {
      Map<String, Object> source = new LinkedHashMap<>(volume);
      String name = String.valueOf(source.remove("name"));
      volumes.add(new JobPlan.Volume(name, source));
    }
    return new JobPlan.Pod(readContainer(chosen), others, volumes,
        Maps.number(podSpec, "terminationGracePeriodSeconds"),
        stringMap(Maps.map(template, "metadata", "labels")),
        stringMap(Maps.map(template, "metadata", "annotations")),
        Maps.string(podSpec, "serviceAccountName"));
  }

  private static Map<String, String> stringMap(Map<String, Object> map) {
    Map<String, String> result = new LinkedHashMap<>();
    map.forEach((k, v) -> result.put(k, String.valueOf(v)));
    return result;
  }

  private static JobPlan.Container readContainer(Map<String, Object> container) {
    List<JobPlan.Mount> mounts = new ArrayList<>();
    for (Map<String, Object> mount : Maps.maps(container, "volumeMounts")) {
      mounts.add(new JobPlan.Mount(Maps.string(mount, "name").orElse(""),
          Maps.string(mount, "mountPath").orElse(""),
          Maps.at(mount, "readOnly").map(Boolean.TRUE::equals).orElse(false),
          Maps.string(mount, "subPath").orElse("")));
    }
    Map<String, Integer> ports = new LinkedHashMap<>();
    for (Map<String, Object> port : Maps.maps(container, "ports")) {
      Maps.number(port, "containerPort").ifPresent(number -> ports.put(
          Maps.string(port, "name").orElse(String.valueOf(number)), number.intValue()));
    }
    Map<String, Object> resources = Maps.map(container, "resources");
    long gpus = Math.max(Maps.number(resources, "limits", GPU).orElse(0L),
        Maps.number(resources, "requests", GPU).orElse(0L));
    return new JobPlan.Container(Maps.string(container, "name").orElse("main"),
        Maps.strings(container, "command"), Maps.strings(container, "args"),
        Maps.maps(container, "env"), Maps.maps(container, "envFrom"),
        Maps.string(container, "workingDir"), mounts, gpus, ports, resources,
        Maps.string(container, "image").orElse(""));
  }

  private static int count(String field, Optional<Object> value, int defaultValue) {
    if (value.isEmpty()) {
      return defaultValue;
    }
    long n = Maps.toLong(value.get()).orElseThrow(() -> InvalidInputException.of(field,
        "'" + value.get() + "' is not a number", "give a whole number"));
    if (n < 0 || n > 10_000) {
      throw InvalidInputException.of(field, n + " is out of range", "use 0 to 10000");
    }
    return (int) n;
  }
}

package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a rendered TrainJob (either Trainer shape) the way the Trainer and JobSet controllers
 * would turn it into pods (CONTRACT.md (b)): one replicated job {@code node} of
 * {@code trainer.numNodes} pods running container {@code node} with the trainer's image, command,
 * args, env and {@code resourcesPerNode}, plus what the runtime patch on the {@code node} job
 * (v2.3 {@code runtimePatches}, v2.0 {@code podSpecOverrides}) adds: volumes, mounts, service
 * account, pod labels and annotations. The runtime's restart policy and backoff limit come from
 * {@link LocalRuntimes}. What only a cluster can do (initializers, suspension) fails here, before
 * any process starts.
 */
final class TrainJobReader {
  private TrainJobReader() {}

  static JobPlan read(RenderedJob job, Map<String, Object> spec) {
    String where = "local";
    Map<String, Object> ref = Maps.map(spec, "runtimeRef");
    LocalRuntimes.Runtime runtime = LocalRuntimes.require(
        Maps.string(ref, "kind").orElse(TrainJobs.CLUSTER_RUNTIME),
        Maps.string(ref, "name").orElse(""));
    if (!Maps.map(spec, "initializer").isEmpty()) {
      throw InvalidInputException.of("initializer", "the " + where + " cluster does not run"
          + " dataset or model initializers (they need the runtime's initializer jobs)",
          "drop .datasetInitializer(..)/.modelInitializer(..) here and read the data from a"
              + " volume (Mutators.pvc(..) or a local claim directory), or run on a cluster");
    }
    if (Maps.at(spec, "suspend").map(Boolean.TRUE::equals).orElse(false)) {
      throw InvalidInputException.of("suspend", "the " + where + " cluster cannot hold a"
          + " TrainJob suspended", "drop .suspend() here; suspend and resume on a cluster");
    }
    Map<String, Object> trainer = Maps.map(spec, "trainer");
    long nodes = Maps.number(trainer, "numNodes").orElse(1L);
    if (nodes < 1 || nodes > 1000) {
      throw InvalidInputException.of("spec.trainer.numNodes", nodes + " is out of range",
          "use 1 to 1000 nodes");
    }
    Map<String, Object> podSpec = nodePatch(spec);
    Map<String, Object> container = new LinkedHashMap<>();
    container.put("name", TrainJobs.NODE);
    Maps.at(trainer, "image").ifPresent(v -> container.put("image", v));
    Maps.at(trainer, "command").ifPresent(v -> container.put("command", v));
    Maps.at(trainer, "args").ifPresent(v -> container.put("args", v));
    Maps.at(trainer, "env").ifPresent(v -> container.put("env", v));
    Maps.at(trainer, "resourcesPerNode").ifPresent(v -> container.put("resources", v));
    for (Map<String, Object> patched : Maps.maps(podSpec, "containers")) {
      if (TrainJobs.NODE.equals(patched.get("name"))) {
        Maps.at(patched, "volumeMounts").ifPresent(v -> container.put("volumeMounts", v));
      }
    }
    Map<String, Object> pod = new LinkedHashMap<>(podSpec);
    pod.put("containers", List.of(container));
    Map<String, Object> template = new LinkedHashMap<>();
    template.put("metadata", nodeMetadata(spec));
    template.put("spec", pod);
    JobPlan.Pod read = ManifestReader.readPod("spec.trainer", template,
        Optional.of(TrainJobs.NODE));
    JobPlan.Group group = new JobPlan.Group(TrainJobs.NODE, (int) nodes,
        runtime.restartPolicy(), read);
    // The JobSet deletes the Jobs still active when it ends (CONTRACT.md (g)): like Running.
    return new JobPlan(LocalKind.TRAINJOB, job.name(), job.namespace(), List.of(group),
        Optional.of(runtime.backoffLimit()), Maps.number(spec, "activeDeadlineSeconds"),
        JobPlan.NO_SPEC, Optional.empty(), CleanPodPolicy.RUNNING, job.objects());
  }

  /** The pod spec the runtime patch (v2.3) or override (v2.0) for the node job sets. */
  private static Map<String, Object> nodePatch(Map<String, Object> spec) {
    Map<String, Object> merged = new LinkedHashMap<>();
    for (Map<String, Object> patch : Maps.maps(spec, "runtimePatches")) {
      for (Map<String, Object> job : Maps.maps(patch, "trainingRuntimeSpec", "template", "spec",
          "replicatedJobs")) {
        if (TrainJobs.NODE.equals(job.get("name"))) {
          merged.putAll(Maps.map(job, "template", "spec", "template", "spec"));
        }
      }
    }
    for (Map<String, Object> override : Maps.maps(spec, "podSpecOverrides")) {
      boolean targetsNode = Maps.maps(override, "targetJobs").stream()
          .anyMatch(t -> TrainJobs.NODE.equals(t.get("name")));
      if (targetsNode) {
        override.forEach((key, value) -> {
          if (!key.equals("targetJobs")) {
            merged.put(key, value);
          }
        });
      }
    }
    return merged;
  }

  /** Pod labels and annotations: the v2.3 patch's, or v2.0's {@code spec.labels}. */
  private static Map<String, Object> nodeMetadata(Map<String, Object> spec) {
    Map<String, Object> labels = new LinkedHashMap<>(Maps.map(spec, "labels"));
    Map<String, Object> annotations = new LinkedHashMap<>(Maps.map(spec, "annotations"));
    for (Map<String, Object> patch : Maps.maps(spec, "runtimePatches")) {
      for (Map<String, Object> job : Maps.maps(patch, "trainingRuntimeSpec", "template", "spec",
          "replicatedJobs")) {
        if (TrainJobs.NODE.equals(job.get("name"))) {
          labels.putAll(Maps.map(job, "template", "spec", "template", "metadata", "labels"));
          annotations.putAll(Maps.map(job, "template", "spec", "template", "metadata",
              "annotations"));
        }
      }
    }
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("labels", labels);
    metadata.put("annotations", annotations);
    return metadata;
  }
}

package dev.fairing4j.deployer.local;

import dev.fairing4j.deployer.job.internal.RenderedJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds rendered jobs by hand, shaped as the renderers write them (CONTRACT.md), so the local
 * cluster's tests do not depend on the renderers.
 */
public final class Manifests {
  private Manifests() {}

  /** A container named {@code name} running {@code command}. */
  public static Map<String, Object> container(String name, List<String> command,
      Map<String, String> env, int port, String portName) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("name", name);
    c.put("image", "registry.example.com/team/test:1");
    c.put("command", command);
    List<Map<String, Object>> envList = new ArrayList<>();
    env.forEach((k, v) -> envList.add(new LinkedHashMap<>(Map.of("name", k, "value", v))));
    c.put("env", envList);
    if (port > 0) {
      c.put("ports", List.of(Map.of("name", portName, "containerPort", port)));
    }
    return c;
  }

  /** A replica spec with {@code replicas} copies of {@code container}. */
  public static Map<String, Object> replicaSpec(int replicas, String restartPolicy,
      Map<String, Object> container, List<Map<String, Object>> volumes) {
    Map<String, Object> podSpec = new LinkedHashMap<>();
    podSpec.put("containers", List.of(container));
    if (!volumes.isEmpty()) {
      podSpec.put("volumes", volumes);
    }
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("replicas", replicas);
    spec.put("restartPolicy", restartPolicy);
    spec.put("template", Map.of("spec", podSpec));
    return spec;
  }

  /** A PVC volume entry. */
  public static Map<String, Object> pvcVolume(String name, String claim) {
    return Map.of("name", name, "persistentVolumeClaim", Map.of("claimName", claim));
  }

  /** A volumeMounts entry. */
  public static Map<String, Object> mount(String name, String path) {
    return Map.of("name", name, "mountPath", path);
  }

  /** A PyTorchJob with one Master and {@code workers} Workers, all running {@code command}. */
  public static RenderedJob pyTorchJob(String name, int workers, List<String> command,
      String restartPolicy, Map<String, Object> runPolicy) {
    return pyTorchJob(name, workers, container("pytorch", command, Map.of(), 23456,
        "pytorchjob-port"), restartPolicy, runPolicy, List.of(), null);
  }

  /** A PyTorchJob with a given container and volumes, and {@code nprocPerNode} when not null. */
  public static RenderedJob pyTorchJob(String name, int workers, Map<String, Object> container,
      String restartPolicy, Map<String, Object> runPolicy, List<Map<String, Object>> volumes,
      String nprocPerNode) {
    Map<String, Object> replicaSpecs = new LinkedHashMap<>();
    replicaSpecs.put("Master", replicaSpec(1, restartPolicy, container, volumes));
    if (workers > 0) {
      replicaSpecs.put("Worker", replicaSpec(workers, restartPolicy, container, volumes));
    }
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("pytorchReplicaSpecs", replicaSpecs);
    spec.put("runPolicy", runPolicy);
    if (nprocPerNode != null) {
      spec.put("nprocPerNode", nprocPerNode);
    }
    return job("kubeflow.org/v1", "PyTorchJob", name, spec);
  }

  /** A TFJob with a Chief, one PS and {@code workers} Workers. */
  public static RenderedJob tfJob(String name, int workers, List<String> command) {
    Map<String, Object> c = container("tensorflow", command, Map.of(), 2222, "tfjob-port");
    Map<String, Object> replicaSpecs = new LinkedHashMap<>();
    replicaSpecs.put("Chief", replicaSpec(1, "Never", c, List.of()));
    replicaSpecs.put("PS", replicaSpec(1, "Never", c, List.of()));
    replicaSpecs.put("Worker", replicaSpec(workers, "Never", c, List.of()));
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("tfReplicaSpecs", replicaSpecs);
    spec.put("runPolicy", Map.of("backoffLimit", 0));
    return job("kubeflow.org/v1", "TFJob", name, spec);
  }

  /**
   * An Indexed batch Job with {@code completions} pods, its env synthesised as a renderer would:
   * RANK from the completion-index annotation, WORLD_SIZE, and MASTER_ADDR naming pod 0.
   */
  public static RenderedJob indexedJob(String name, int completions, List<String> command) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("name", "main");
    c.put("image", "registry.example.com/team/test:1");
    c.put("command", command);
    c.put("ports", List.of(Map.of("name", "dist", "containerPort", 29500)));
    c.put("env", List.of(
        Map.of("name", "RANK", "valueFrom", Map.of("fieldRef", Map.of("fieldPath",
            "metadata.annotations['batch.kubernetes.io/job-completion-index']"))),
        Map.of("name", "WORLD_SIZE", "value", String.valueOf(completions)),
        Map.of("name", "MASTER_ADDR", "value", name + "-0." + name),
        Map.of("name", "MASTER_PORT", "value", "29500"),
        Map.of("name", "POD_NAME", "valueFrom", Map.of("fieldRef",
            Map.of("fieldPath", "metadata.name")))));
    Map<String, Object> podSpec = new LinkedHashMap<>();
    podSpec.put("restartPolicy", "Never");
    podSpec.put("subdomain", name);
    podSpec.put("containers", List.of(c));
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("completions", completions);
    spec.put("parallelism", completions);
    spec.put("completionMode", "Indexed");
    spec.put("backoffLimit", 0);
    spec.put("template", Map.of("spec", podSpec));
    Map<String, Object> service = new LinkedHashMap<>();
    service.put("apiVersion", "v1");
    service.put("kind", "Service");
    service.put("metadata", Map.of("name", name, "namespace", "default"));
    service.put("spec", Map.of("clusterIP", "None", "selector", Map.of("job-name", name)));
    Map<String, Object> job = object("batch/v1", "Job", name, spec);
    return new RenderedJob("Job", name, "default", List.of(service, job));
  }

  private static RenderedJob job(String apiVersion, String kind, String name,
      Map<String, Object> spec) {
    return new RenderedJob(kind, name, "default", List.of(object(apiVersion, kind, name, spec)));
  }

  private static Map<String, Object> object(String apiVersion, String kind, String name,
      Map<String, Object> spec) {
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", apiVersion);
    object.put("kind", kind);
    object.put("metadata", Map.of("name", name, "namespace", "default"));
    object.put("spec", spec);
    return object;
  }
}

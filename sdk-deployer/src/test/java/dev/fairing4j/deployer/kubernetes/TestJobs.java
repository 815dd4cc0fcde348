package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Rendered jobs built by hand, as a renderer would hand them to a cluster, and quick timings. */
final class TestJobs {
  static final String IMAGE = "registry.example.com/team/mnist@sha256:"
      + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  /** Fast polls so the tests take milliseconds, not seconds. */
  static final Timings FAST =
      new Timings(Duration.ofMillis(50), Duration.ofMillis(20), Duration.ofSeconds(5));

  private TestJobs() {}

  /** A PyTorchJob with a Master and one Worker, preceded by a headless Service. */
  static RenderedJob pyTorchJob(String name, String namespace) {
    return new RenderedJob("PyTorchJob", name, namespace,
        List.of(headlessService(name + "-headless", name), pyTorchObject(name)));
  }

  static Map<String, Object> pyTorchObject(String name) {
    Map<String, Object> replicaSpecs = new LinkedHashMap<>();
    replicaSpecs.put("Master", replica(1));
    replicaSpecs.put("Worker", replica(1));
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("runPolicy", Map.of("cleanPodPolicy", "None"));
    spec.put("nprocPerNode", "auto");
    spec.put("pytorchReplicaSpecs", replicaSpecs);
    Map<String, Object> job = new LinkedHashMap<>();
    job.put("apiVersion", "kubeflow.org/v1");
    job.put("kind", "PyTorchJob");
    job.put("metadata", Map.of("name", name,
        "labels", Map.of("app.kubernetes.io/managed-by", "fairing4j")));
    job.put("spec", spec);
    return job;
  }

  static Map<String, Object> headlessService(String name, String job) {
    return Map.of("apiVersion", "v1", "kind", "Service",
        "metadata", Map.of("name", name, "labels", Map.of("app.kubernetes.io/managed-by",
            "fairing4j")),
        "spec", Map.of("clusterIP", "None",
            "selector", Map.of("training.kubeflow.org/job-name", job),
            "ports", List.of(Map.of("name", "pytorchjob-port", "port", 23456))));
  }

  private static Map<String, Object> replica(int replicas) {
    Map<String, Object> container = new LinkedHashMap<>();
    container.put("name", "pytorch");
    container.put("image", IMAGE);
    container.put("command", List.of("python3", "/app/mnist.py"));
    container.put("ports", List.of(Map.of("name", "pytorchjob-port", "containerPort", 23456)));
    return Map.of("replicas", replicas, "restartPolicy", "OnFailure",
        "template", Map.of("spec", Map.of("containers", List.of(container))));
  }

  /** A Kubernetes Status body, as the API server sends with errors. */
  static String status(int code, String reason, String message, String details) {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        + "\"message\":\"" + message.replace("\"", "\\\"") + "\",\"reason\":\"" + reason
        + "\",\"details\":" + details + ",\"code\":" + code + "}";
  }
}

package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.opentest4j.AssertionFailedError;

/**
 * Plays, against a real API server ({@link KubeApiServer}), what that server alone lacks: the
 * Kubeflow training operator and the node. As /work/shared/kubeflow/CONTRACT.md describes the
 * operator, it creates the replica pods ({@code <job>-<type>-<index>}, the
 * {@code training.kubeflow.org/*} labels, owned by the job with its real uid, so a garbage
 * collector keeps them exactly as long as the job), writes the job's conditions and
 * replicaStatuses through its {@code /status} subresource and re-posts pod problems as Warning
 * events on the job. As a kubelet and scheduler would, it writes pod phases, container states
 * and the PodScheduled condition through the pods' {@code /status}. Batch Jobs are created with
 * {@code spec.managedBy} naming this player, so kube-controller-manager's Job controller (when a
 * test runs it) leaves their status to the test.
 *
 * <p>Every request goes as {@link User#FIXTURE}, so the audit log holds only the SDK's requests;
 * answers a restarting server gives for a moment (429, 503, nobody listening) are retried, so a
 * test can play on right after {@link KubeApiServer#restartApiServer()}.
 */
final class PlayedOperator {
  /** The {@code spec.managedBy} of batch Jobs this player runs instead of the Job controller. */
  static final String MANAGED_BY = "fairing4j.dev/played-operator";
  private static final String MERGE_PATCH = "application/merge-patch+json";
  private static final Duration RETRY_FOR = Duration.ofSeconds(60);
  private static final AtomicInteger EVENTS = new AtomicInteger();

  private final KubeApiServer server;
  private final String namespace;

  /** Plays in {@code namespace} of {@code server}; makes its {@code default} service account. */
  PlayedOperator(KubeApiServer server, String namespace) {
    this.server = server;
    this.namespace = namespace;
    // The service account controller's job, which pod admission needs; 409 when it ran first.
    send("POST", "/api/v1/namespaces/" + namespace + "/serviceaccounts",
        "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"default\"}}",
        "application/json", 409);
  }

  String namespace() {
    return namespace;
  }

  /** The path of a Kubeflow collection ({@code pytorchjobs}, {@code tfjobs}) in the namespace. */
  String kubeflow(String plural) {
    return "/apis/kubeflow.org/v1/namespaces/" + namespace + "/" + plural;
  }

  /** The path of the namespace's batch Jobs. */
  String batchJobs() {
    return "/apis/batch/v1/namespaces/" + namespace + "/jobs";
  }

  /** The path of the namespace's pods. */
  String pods() {
    return "/api/v1/namespaces/" + namespace + "/pods";
  }

  // ---- jobs ----------------------------------------------------------------------------------

  /**
   * Creates a PyTorchJob {@code name} with a Master and {@code workers} Workers, carrying the
   * SDK's {@code managed-by} label when {@code managed} (so the shared watch sees it).
   */
  Map<String, Object> pyTorchJob(String name, int workers, boolean managed) {
    String labels = managed ? "\"labels\":{\"app.kubernetes.io/managed-by\":\"fairing4j\"}," : "";
    String worker = workers == 0 ? "" : ",\"Worker\":" + replica(workers, "pytorch");
    return post(kubeflow("pytorchjobs"), """
        {"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"%s",%s
         "annotations":{"fairing4j.dev/test":"played"}},
         "spec":{"runPolicy":{"cleanPodPolicy":"None"},"nprocPerNode":"auto",
          "pytorchReplicaSpecs":{"Master":%s%s}}}
        """.formatted(name, labels, replica(1, "pytorch"), worker));
  }

  /** Creates a TFJob {@code name} with a Chief and a Worker. */
  Map<String, Object> tfJob(String name) {
    return post(kubeflow("tfjobs"), """
        {"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"%s"},
         "spec":{"tfReplicaSpecs":{"Chief":%s,"Worker":%s}}}
        """.formatted(name, replica(1, "tensorflow"), replica(1, "tensorflow")));
  }

  private static String replica(int replicas, String container) {
    return """
        {"replicas":%d,"restartPolicy":"OnFailure","template":{"spec":{"containers":[
          {"name":"%s","image":"%s"}]}}}""".formatted(replicas, container, TestJobs.IMAGE);
  }

  /**
   * Creates a batch Job {@code name} that this player runs ({@code spec.managedBy}), labelled as
   * the SDK's when {@code ours}.
   */
  Map<String, Object> batchJob(String name, boolean ours) {
    return post(batchJobs(), """
        {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"%s","labels":{%s}},
         "spec":{"managedBy":"%s","template":{"spec":{"restartPolicy":"Never",
           "containers":[{"name":"main","image":"busybox"}]}}}}
        """.formatted(name, ours ? "\"app.kubernetes.io/managed-by\":\"fairing4j\"" : "",
        MANAGED_BY));
  }

  /** The uid of the job {@code name} in {@code collection} (a path). */
  String uid(String collection, String name) {
    return JsonTree.string(get(collection + "/" + name).orElseThrow(() ->
        new AssertionFailedError(collection + "/" + name + " does not exist")), "metadata", "uid")
        .orElseThrow();
  }

  /**
   * Replaces the job's status as the operator writes it: {@code statusJson} is the whole
   * {@code status} object (a merge patch replaces lists, so the conditions are exactly these).
   */
  void jobStatus(String job, String statusJson) {
    mergePatch(job + "/status", "{\"status\":" + statusJson + "}");
  }

  /** Sets the PyTorchJob's conditions as the operator does on its way to {@code phase}. */
  void pyTorchPhase(String name, String phase) {
    jobStatus(kubeflow("pytorchjobs") + "/" + name, "{\"conditions\":[" + conditions(
        "PyTorchJob", name, phase) + "]}");
  }

  /**
   * The operator's conditions of a job that is {@code phase} (Created, Running, Succeeded,
   * Failed, Suspended): Created stays, Running turns False on success, as the contract says.
   */
  static String conditions(String kind, String name, String phase) {
    String created = condition("Created", "True", kind + "Created",
        kind + " " + name + " is created.");
    return created + switch (phase) {
      case "Created" -> "";
      case "Running" -> "," + condition("Running", "True", kind + "Running",
          kind + " " + name + " is running.");
      case "Succeeded" -> "," + condition("Running", "False", kind + "Running", "")
          + "," + condition("Succeeded", "True", kind + "Succeeded",
          kind + " " + name + " is successfully completed.");
      case "Suspended" -> "," + condition("Suspended", "True", kind + "Suspended",
          kind + " " + name + " is suspended.");
      case "Failed" -> "," + condition("Running", "False", kind + "Running", "")
          + "," + condition("Failed", "True", kind + "Failed", kind + " " + name
          + " is failed because 1 Master replica(s) failed.");
      default -> throw new IllegalArgumentException(phase);
    };
  }

  /** One condition as the operator writes it. */
  static String condition(String type, String status, String reason, String message) {
    return "{\"type\":\"" + type + "\",\"status\":\"" + status + "\",\"reason\":\"" + reason
        + "\",\"message\":\"" + message + "\",\"lastUpdateTime\":\"2024-05-01T12:00:00Z\","
        + "\"lastTransitionTime\":\"2024-05-01T12:00:00Z\"}";
  }

  // ---- pods ----------------------------------------------------------------------------------

  /**
   * Creates the operator's pod {@code <job>-<type>-<index>} of the {@code kind} job {@code job}
   * (owned by it, labelled as the v1.9 operator labels it), with one container {@code container}
   * and, when given, the node it was scheduled to; then writes {@code statusJson} as the kubelet
   * would. The pod as stored.
   */
  Map<String, Object> operatorPod(String kind, String job, String type, int index,
      String container, Optional<String> node, String statusJson) {
    String plural = kind.toLowerCase() + "s";
    String uid = uid(kubeflow(plural), job);
    String name = job + "-" + type + "-" + index;
    String role = type.equals("master") || type.equals("chief")
        ? ",\"training.kubeflow.org/job-role\":\"master\"" : "";
    post(pods(), """
        {"apiVersion":"v1","kind":"Pod",
         "metadata":{"name":"%s","labels":{
           "training.kubeflow.org/job-name":"%s",
           "training.kubeflow.org/replica-type":"%s",
           "training.kubeflow.org/replica-index":"%d",
           "training.kubeflow.org/operator-name":"%s-controller"%s},
           "ownerReferences":[{"apiVersion":"kubeflow.org/v1","kind":"%s","name":"%s",
             "uid":"%s","controller":true,"blockOwnerDeletion":true}]},
         "spec":{%s"containers":[{"name":"%s","image":"%s"}]}}
        """.formatted(name, job, type, index, kind.toLowerCase(), role, kind, job, uid,
        node.map(n -> "\"nodeName\":\"" + n + "\",").orElse(""), container, TestJobs.IMAGE));
    return podStatus(name, statusJson);
  }

  /** A PyTorchJob's pod with container {@code pytorch}, not scheduled. */
  Map<String, Object> pyTorchPod(String job, String type, int index, String statusJson) {
    return operatorPod("PyTorchJob", job, type, index, "pytorch", Optional.empty(), statusJson);
  }

  /** Creates a pod from {@code json} (a whole Pod), then writes {@code statusJson}. */
  Map<String, Object> pod(String json, String statusJson) {
    Map<String, Object> created = post(pods(), json);
    return podStatus(JsonTree.string(created, "metadata", "name").orElseThrow(), statusJson);
  }

  /**
   * Writes a pod's status as the kubelet (phase, container states) and the scheduler
   * (PodScheduled) do; {@code statusJson} is merged into the status.
   */
  Map<String, Object> podStatus(String pod, String statusJson) {
    return mergePatch(pods() + "/" + pod + "/status", "{\"status\":" + statusJson + "}");
  }

  // ---- events --------------------------------------------------------------------------------

  /**
   * Posts an event about {@code kind}/{@code name} (a job or a pod) as the operator, the
   * scheduler or the kubelet would.
   */
  void event(String type, String reason, String kind, String name, String message,
      Instant lastTimestamp, int count) {
    String apiVersion = kind.equals("Pod") ? "v1" : kind.equals("Job") ? "batch/v1"
        : "kubeflow.org/v1";
    post("/api/v1/namespaces/" + namespace + "/events", """
        {"apiVersion":"v1","kind":"Event",
         "metadata":{"name":"%s.%d"},"type":"%s","reason":"%s","message":"%s",
         "involvedObject":{"apiVersion":"%s","kind":"%s","name":"%s","namespace":"%s"},
         "source":{"component":"played-operator"},"count":%d,
         "firstTimestamp":"%s","lastTimestamp":"%s"}
        """.formatted(name, EVENTS.incrementAndGet(), type, reason, message.replace("\"", "\\\""),
        apiVersion, kind, name, namespace, count, lastTimestamp, lastTimestamp));
  }

  /** A Warning event on {@code kind}/{@code name}, seen once. */
  void warning(String reason, String kind, String name, String message, Instant time) {
    event("Warning", reason, kind, name, message, time, 1);
  }

  // ---- plain requests ------------------------------------------------------------------------

  /** POSTs {@code json} to {@code path}; the object as stored. */
  Map<String, Object> post(String path, String json) {
    return send("POST", path, json, "application/json", 0).json();
  }

  /** Merge-patches {@code path}; the object as stored. */
  Map<String, Object> mergePatch(String path, String json) {
    return send("PATCH", path, json, MERGE_PATCH, 0).json();
  }

  /** GETs {@code path}; empty for 404. */
  Optional<Map<String, Object>> get(String path) {
    Response response = send("GET", path, null, "application/json", 404);
    return response.status() == 404 ? Optional.empty() : Optional.of(response.json());
  }

  /** DELETEs {@code path} (background propagation, the API's default for custom resources). */
  void delete(String path) {
    send("DELETE", path, null, "application/json", 404);
  }

  /**
   * Sends a request as the fixture user, retrying the answers of a restarting server; fails the
   * test unless the answer is 2xx or {@code tolerated}.
   */
  Response send(String method, String path, String body, String contentType, int tolerated) {
    Instant deadline = Instant.now().plus(RETRY_FOR);
    while (true) {
      Response response;
      try {
        response = server.send(User.FIXTURE, method, path, body, contentType);
      } catch (java.io.UncheckedIOException notListening) {
        response = new Response(0, String.valueOf(notListening.getCause()));
      }
      boolean temporary = response.status() == 0 || response.status() == 429
          || response.status() == 503;
      if (!temporary || Instant.now().isAfter(deadline)) {
        if (response.status() / 100 != 2 && response.status() != tolerated) {
          throw new AssertionFailedError(method + " " + path + " failed: " + response);
        }
        return response;
      }
      sleep(Duration.ofMillis(100));
    }
  }

  /** Waits up to a minute for {@code condition}, checking every 20 ms. */
  static void await(String what, java.util.function.BooleanSupplier condition) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionFailedError("not within 60 s: " + what);
      }
      sleep(Duration.ofMillis(20));
    }
  }

  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted");
    }
  }

  /** The names in a list answer. */
  static List<String> names(Map<String, Object> list) {
    return JsonTree.maps(list, "items").stream()
        .map(o -> JsonTree.string(o, "metadata", "name").orElse("")).toList();
  }
}

package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.opentest4j.AssertionFailedError;

/**
 * The test's side of a real API server ({@link RealKubernetes}): objects put in and read back as
 * the fixture user, the way the operator, the kubelet or kubectl would, independent of the code
 * under test; statuses patched as the operator would; and clusters for the SDK user in the test's
 * namespace.
 */
final class RealApiObjects {
  /**
   * Quick polls, but deletions may take a while: a Foreground deletion waits for the garbage
   * collector, which shares two cores with the build.
   */
  static final Timings TIMINGS =
      new Timings(Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofSeconds(90));
  /** How long a test waits for a controller (garbage collector, volume binder) to act. */
  static final Duration CONTROLLER_WAIT = Duration.ofSeconds(90);

  private final RealKubernetes k8s;

  RealApiObjects(RealKubernetes k8s) {
    this.k8s = Objects.requireNonNull(k8s, "k8s");
  }

  /** The server. */
  KubeApiServer server() {
    return k8s.server();
  }

  /** The test's namespace. */
  String ns() {
    return k8s.namespace();
  }

  /** A cluster of the SDK user whose kubeconfig context is the test's namespace. */
  KubernetesCluster cluster() {
    return cluster(k8s.kubeconfig());
  }

  /** A cluster configured by {@code kubeconfig}, with the real-server timings. */
  static KubernetesCluster cluster(Path kubeconfig) {
    return Clusters.kubernetes().kubeconfig(kubeconfig).withTimings(TIMINGS);
  }

  /** The collection path of the test namespace's PyTorchJobs. */
  String jobs() {
    return "/apis/kubeflow.org/v1/namespaces/" + ns() + "/pytorchjobs";
  }

  /** The collection path of the test namespace's Services. */
  String services() {
    return "/api/v1/namespaces/" + ns() + "/services";
  }

  /** The collection path of the test namespace's {@code plural} in the core group. */
  String core(String plural) {
    return "/api/v1/namespaces/" + ns() + "/" + plural;
  }

  /** GETs {@code path} as the fixture user; an empty map for 404. */
  Map<String, Object> get(String path) {
    Response response = server().send("GET", path, null);
    if (response.status() == 404) {
      return Map.of();
    }
    if (response.status() != 200) {
      throw new AssertionFailedError("GET " + path + " failed: " + response);
    }
    return response.json();
  }

  /** POSTs {@code body} (a Map or JSON text) to {@code path}; the stored object. */
  Map<String, Object> post(String path, Object body) {
    return server().request("POST", path, body);
  }

  /** Merge-patches {@code path} (e.g. an object's {@code /status}); the stored object. */
  Map<String, Object> mergePatch(String path, Object patch) {
    Response response = server().send(User.FIXTURE, "PATCH", path, patch,
        "application/merge-patch+json");
    if (response.status() / 100 != 2) {
      throw new AssertionFailedError("PATCH " + path + " failed: " + response);
    }
    return response.json();
  }

  /** The object's {@code metadata.uid}. */
  String uid(String path) {
    Object uid = metadata(get(path)).get("uid");
    assertThat(uid).as("uid of %s", path).isNotNull();
    return String.valueOf(uid);
  }

  /** Waits until GET {@code path} answers 404, as a controller (the garbage collector) acts. */
  void awaitGone(String path) {
    await("gone: " + path, () -> get(path).isEmpty());
  }

  /** Waits (bounded) until {@code condition} holds. */
  static void await(String what, Supplier<Boolean> condition) {
    Instant deadline = Instant.now().plus(CONTROLLER_WAIT);
    while (!condition.get()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionFailedError("not within " + CONTROLLER_WAIT.toSeconds() + " s: "
            + what);
      }
      sleep(200);
    }
  }

  /** The requests of {@code user} name since {@code mark}, as {@code "verb /uri"} lines. */
  List<String> linesOf(AuditLog.Mark mark, String username) {
    return server().audit().since(mark).stream().filter(r -> r.user().equals(username))
        .map(AuditLog.Request::line).toList();
  }

  /**
   * Creates a Role in the test namespace with {@code rules} and binds it to {@code user}, then
   * waits until the authorizer has seen the binding (RBAC reaches it through an informer, a
   * moment after the write): until {@code user} may GET {@code probePath}.
   */
  void grant(String roleName, User user, List<Map<String, Object>> rules, String probePath) {
    post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns() + "/roles", Map.of(
        "apiVersion", "rbac.authorization.k8s.io/v1", "kind", "Role",
        "metadata", Map.of("name", roleName), "rules", rules));
    post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns() + "/rolebindings", Map.of(
        "apiVersion", "rbac.authorization.k8s.io/v1", "kind", "RoleBinding",
        "metadata", Map.of("name", roleName),
        "roleRef", Map.of("apiGroup", "rbac.authorization.k8s.io", "kind", "Role",
            "name", roleName),
        "subjects", List.of(Map.of("apiGroup", "rbac.authorization.k8s.io", "kind", "User",
            "name", user.username()))));
    await("RBAC allows " + user + " to GET " + probePath, () -> server().send(
        user, "GET", probePath, null, "application/json").status() != 403);
  }

  /**
   * The status of a request sent with the bearer token {@code token} (a service account's, say),
   * for probes of what RBAC allows.
   */
  int statusAs(String token, String method, String path) {
    ApiClient client = new ClientBuilder().setBasePath(server().url())
        .setCertificateAuthority(server().caPem().getBytes(StandardCharsets.US_ASCII)).build();
    Request request = new Request.Builder().url(server().url() + path)
        .header("Authorization", "Bearer " + token)
        .method(method, method.equals("GET") || method.equals("DELETE") ? null
            : RequestBody.create("{}", MediaType.get("application/json")))
        .build();
    try (okhttp3.Response response = client.getHttpClient().newCall(request).execute()) {
      return response.code();
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path, e);
    }
  }

  /** One RBAC rule. */
  static Map<String, Object> rule(String group, List<String> resources, List<String> verbs) {
    return Map.of("apiGroups", List.of(group), "resources", resources, "verbs", verbs);
  }

  /** A job condition as the operator writes it. */
  static Map<String, Object> condition(String type, String status, String reason,
      String message) {
    Map<String, Object> condition = new LinkedHashMap<>();
    condition.put("type", type);
    condition.put("status", status);
    condition.put("reason", reason);
    condition.put("message", message);
    condition.put("lastUpdateTime", "2024-05-01T12:00:00Z");
    condition.put("lastTransitionTime", "2024-05-01T12:00:00Z");
    return condition;
  }

  /** The PyTorchJob conditions the operator leaves on a job that succeeded. */
  static Map<String, Object> succeededStatus(String job) {
    return Map.of("status", Map.of("conditions", List.of(
        condition("Created", "True", "PyTorchJobCreated", "PyTorchJob " + job + " is created."),
        condition("Running", "False", "PyTorchJobRunning", ""),
        condition("Succeeded", "True", "PyTorchJobSucceeded",
            "PyTorchJob " + job + " is successfully completed."))));
  }

  /**
   * The fields {@code stored} has beyond {@code sent}, as {@code "path=value"}, after checking
   * that every field sent is stored unchanged: what the API server added (defaults, pruning
   * shows up as a difference).
   */
  static List<String> addedByServer(Object sent, Object stored) {
    List<String> added = new ArrayList<>();
    compare("", sent, stored, added);
    return added;
  }

  @SuppressWarnings("unchecked")
  private static void compare(String path, Object sent, Object stored, List<String> added) {
    if (sent instanceof Map<?, ?> sentMap && stored instanceof Map<?, ?> storedMap) {
      for (Map.Entry<?, ?> entry : sentMap.entrySet()) {
        String key = path + "." + entry.getKey();
        assertThat(storedMap.containsKey(entry.getKey())).as("the server kept %s", key).isTrue();
        compare(key, entry.getValue(), storedMap.get(entry.getKey()), added);
      }
      for (Map.Entry<?, ?> entry : ((Map<Object, Object>) storedMap).entrySet()) {
        if (!sentMap.containsKey(entry.getKey())) {
          added.add(path + "." + entry.getKey() + "=" + entry.getValue());
        }
      }
    } else if (sent instanceof List<?> sentList && stored instanceof List<?> storedList) {
      assertThat(storedList).as("the list at %s", path).hasSameSizeAs(sentList);
      for (int i = 0; i < sentList.size(); i++) {
        compare(path + "[" + i + "]", sentList.get(i), storedList.get(i), added);
      }
    } else {
      assertThat(stored).as("the value at %s", path).isEqualTo(sent);
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> metadata(Map<String, Object> object) {
    Object metadata = object.get("metadata");
    return metadata instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted");
    }
  }
}

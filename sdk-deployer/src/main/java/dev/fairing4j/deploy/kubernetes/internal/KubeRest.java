package dev.fairing4j.deploy.kubernetes.internal;

import dev.fairing4j.deploy.kubernetes.KubernetesApiException;
import dev.fairing4j.deploy.kubernetes.KubernetesApiException.Problem;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.ResponseBody;

/**
 * The API requests fairing4j makes, on client-java's {@link ApiClient} (its authentication, TLS
 * and connection pool) with objects as JSON trees. Every failure becomes a
 * {@link KubernetesApiException} through {@link ApiErrors}.
 *
 * <p>Why not the typed APIs: client-java's models reject fields they do not know and
 * {@code CustomObjectsApi} cannot address the core group; one generic path serves every kind the
 * renderers produce, Kubeflow CRDs and core objects alike.
 */
public final class KubeRest {
  /** Content type of a JSON merge patch. */
  public static final String MERGE_PATCH = "application/merge-patch+json";
  private static final String JSON = "application/json";
  private static final String[] AUTH = {"BearerToken"};

  private final ApiClient client;
  private final ClusterConfig config;

  /** Requests through {@code client} to the cluster {@code config} describes. */
  public KubeRest(ApiClient client, ClusterConfig config) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
  }

  /**
   * An HTTP response: status code and body.
   *
   * @param code the HTTP status
   * @param body the body as text, empty when there was none
   */
  public record Response(int code, String body) {
    /** True for 2xx. */
    public boolean ok() {
      return code >= 200 && code < 300;
    }

    /** The body as a JSON tree; empty when it is not a JSON object. */
    public Map<String, Object> json() {
      return JsonTree.parseObject(body);
    }
  }

  /** The cluster this client talks to. */
  public ClusterConfig config() {
    return config;
  }

  /** Creates {@code object}; returns the object as stored (with uid and resourceVersion). */
  public Map<String, Object> create(ResourceRef resource, Optional<String> namespace,
      Map<String, Object> object) {
    Operation operation = Operation.create(resource, namespace,
        JsonTree.string(object, "metadata", "name").orElse(""));
    Response response = send("POST", operation, List.of(), object, JSON);
    if (!response.ok()) {
      throw error(operation, response);
    }
    return response.json();
  }

  /** Reads one object; empty when it does not exist. */
  public Optional<Map<String, Object>> find(ResourceRef resource, Optional<String> namespace,
      String name) {
    Operation operation = Operation.on("get", resource, namespace, name);
    Response response = send("GET", operation, List.of(), null, JSON);
    if (response.ok()) {
      return Optional.of(response.json());
    }
    KubernetesApiException error = error(operation, response);
    if (response.code() == 404 && error.problem() == Problem.NOT_FOUND) {
      return Optional.empty();
    }
    throw error;
  }

  /** Lists objects matching the selectors (either may be empty). */
  public List<Map<String, Object>> list(ResourceRef resource, Optional<String> namespace,
      Optional<String> labelSelector, Optional<String> fieldSelector) {
    Operation operation = Operation.onCollection("list", resource, namespace);
    List<Pair> query = new ArrayList<>();
    fieldSelector.ifPresent(s -> query.add(new Pair("fieldSelector", s)));
    labelSelector.ifPresent(s -> query.add(new Pair("labelSelector", s)));
    Response response = send("GET", operation, query, null, JSON);
    if (!response.ok()) {
      throw error(operation, response);
    }
    return JsonTree.maps(response.json(), "items");
  }

  /**
   * Deletes one object with {@code propagation} ({@code Foreground}, {@code Background} or
   * {@code Orphan}); false when it did not exist.
   */
  public boolean delete(ResourceRef resource, Optional<String> namespace, String name,
      String propagation) {
    Operation operation = Operation.on("delete", resource, namespace, name);
    Map<String, Object> options = Map.of("apiVersion", "v1", "kind", "DeleteOptions",
        "propagationPolicy", propagation);
    Response response = send("DELETE", operation, List.of(), options, JSON);
    if (response.ok()) {
      return true;
    }
    KubernetesApiException error = error(operation, response);
    if (response.code() == 404 && error.problem() == Problem.NOT_FOUND) {
      return false;
    }
    throw error;
  }

  /** Applies a JSON merge patch to one object; returns the object as stored. */
  public Map<String, Object> mergePatch(ResourceRef resource, Optional<String> namespace,
      String name, Map<String, Object> patch) {
    Operation operation = Operation.on("patch", resource, namespace, name);
    Response response = send("PATCH", operation, List.of(), patch, MERGE_PATCH);
    if (!response.ok()) {
      throw error(operation, response);
    }
    return response.json();
  }

  /** Whether a namespace exists; empty when that cannot be told (e.g. no RBAC to read it). */
  public Optional<Boolean> namespaceExists(String namespace) {
    try {
      Response response = send("GET",
          Operation.on("get", ResourceRef.NAMESPACES, Optional.empty(), namespace), List.of(),
          null, JSON);
      if (response.ok()) {
        return Optional.of(true);
      }
      return response.code() == 404 ? Optional.of(false) : Optional.empty();
    } catch (KubernetesApiException e) {
      return Optional.empty();
    }
  }

  /**
   * Reads a container's log as text, through {@code CoreV1Api.readNamespacedPodLog} so the query
   * is the one client-java (and its {@code PodLogs}) sends: {@code container}, then
   * {@code tailLines} and {@code timestamps}. {@code sinceTime}, which client-java does not model,
   * is appended last, truncated to the second the API accepts.
   */
  public String readLog(String namespace, String pod, String container,
      Optional<Integer> tailLines, boolean timestamps, Optional<Instant> sinceTime) {
    Operation operation = Operation.on("get", ResourceRef.PODS, Optional.of(namespace), pod)
        .sub("log");
    Call call;
    try {
      CoreV1Api.APIreadNamespacedPodLogRequest request =
          new CoreV1Api(client).readNamespacedPodLog(pod, namespace).container(container);
      tailLines.ifPresent(request::tailLines);
      if (timestamps) {
        request.timestamps(true);
      }
      call = request.buildCall(null);
    } catch (ApiException e) {
      throw unreachable(operation, e);
    }
    if (sinceTime.isPresent()) {
      Request original = call.request();
      HttpUrl url = original.url().newBuilder().addQueryParameter("sinceTime",
          sinceTime.get().truncatedTo(ChronoUnit.SECONDS).toString()).build();
      call = client.getHttpClient().newCall(original.newBuilder().url(url).build());
    }
    Response response = execute(operation, call);
    if (!response.ok()) {
      throw error(operation, response);
    }
    return response.body();
  }

  /** The exception for a failed response, asking about the namespace when the body is mute. */
  public KubernetesApiException error(Operation operation, Response response) {
    return ApiErrors.translate(operation, response, this::namespaceExists, config.redactor());
  }

  private Response send(String method, Operation operation, List<Pair> query, Object body,
      String contentType) {
    String path = operation.path();
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", JSON);
    headers.put("Content-Type", contentType);
    // Bytes, so ApiClient sends the tree exactly as given instead of re-serialising it with Gson.
    Object payload = body == null ? null
        : JsonTree.toJson(body).getBytes(StandardCharsets.UTF_8);
    Call call;
    try {
      call = client.buildCall(null, path, method, new ArrayList<>(query), new ArrayList<>(),
          payload, headers, new HashMap<>(), new HashMap<>(), AUTH, null);
    } catch (ApiException e) {
      throw unreachable(operation, e);
    }
    return execute(operation, call);
  }

  private Response execute(Operation operation, Call call) {
    try (okhttp3.Response response = call.execute()) {
      ResponseBody body = response.body();
      return new Response(response.code(), body == null ? "" : body.string());
    } catch (IOException e) {
      throw unreachable(operation, e);
    }
  }

  private KubernetesApiException unreachable(Operation operation, Exception e) {
    String detail = e.getMessage() == null ? "" : ": " + config.redactor().redact(e.getMessage());
    return new KubernetesApiException(Problem.UNREACHABLE, operation.what(), operation.subject(),
        "cannot reach the API server at " + config.server() + " (" + e.getClass().getSimpleName()
            + detail + ")",
        "check that the cluster is up and that "
            + config.context().map(c -> "context '" + c + "'").orElse("the configuration")
            + " points at it: kubectl cluster-info", null, e);
  }
}

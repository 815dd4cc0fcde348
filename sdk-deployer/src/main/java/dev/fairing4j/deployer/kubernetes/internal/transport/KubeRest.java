package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.ResponseBody;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API requests fairing4j makes, on client-java's {@link ApiClient} (its authentication, TLS
 * and connection pool) with objects as JSON trees. Every failure becomes a
 * {@link KubernetesApiException} through {@link ApiErrors}.
 *
 * <p>Why not the typed APIs: client-java's models reject fields they do not know and
 * {@code CustomObjectsApi} cannot address the core group; one generic path serves every kind the
 * renderers produce, Kubeflow CRDs and core objects alike.
 *
 * <p>Why not client-java's own generic path ({@code GenericKubernetesApi} and its
 * {@code DynamicKubernetesApi}), which addresses any group too: it sends each request once. In
 * client-java 27.0.0 the only retry is {@code RetryUtils.retryUponConflict} (409s, on request),
 * and {@code GenericKubernetesApi}'s bytecode calls no retry at all, so a 429 from API Priority
 * and Fairness, a 5xx or a refused connection during an apiserver restart would fail the user's
 * submit or wait; the calls here ride them out ({@code ApiHiccupsIT} has a real apiserver
 * answer 429s, {@code WatchedWaitIT} restarts one mid-wait, {@code ApiRetryTest} covers 5xx). It
 * also has no per-call deadline ({@link #until}), and its objects are Gson
 * trees where the renderers produce Jackson maps, a conversion each way per call.
 *
 * <p>Every request rides out a server that hiccups ({@link ApiRetry}: 429 and 5xx answers,
 * refused connections, reads that time out): it is sent again, after the server's
 * {@code Retry-After} or a doubling pause, until the caller's deadline ({@link #until(long)}) or,
 * without one, {@link #DEFAULT_BUDGET}; only then it fails, with the last error and how long it
 * was tried. Instances are immutable; {@link #until(long)} derives a bounded one.
 */
public final class KubeRest {
  /** How the kubelet's answer for a container log it no longer has begins; see isLogGone. */
  public static final String LOG_GONE = "unable to retrieve container logs for ";

  /** Content type of a JSON merge patch. */
  public static final String MERGE_PATCH = "application/merge-patch+json";
  private static final String JSON = "application/json";
  private static final String[] AUTH = {"BearerToken"};

  /** How long one call keeps trying a hiccuping server when the caller names no deadline. */
  public static final Duration DEFAULT_BUDGET = Duration.ofSeconds(60);
  private static final Logger LOG = LoggerFactory.getLogger(KubeRest.class);

  private final ApiClient client;
  private final ClusterConfig config;
  private final Duration budget;
  private final OptionalLong deadlineNanos;

  /** Requests through {@code client} to the cluster {@code config} describes. */
  public KubeRest(ApiClient client, ClusterConfig config) {
    this(client, config, DEFAULT_BUDGET, OptionalLong.empty());
  }

  private KubeRest(ApiClient client, ClusterConfig config, Duration budget,
      OptionalLong deadlineNanos) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    this.budget = Objects.requireNonNull(budget, "budget");
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * The same client, whose calls stop trying a hiccuping server at {@code deadlineNanos} (a
   * {@link System#nanoTime()} value) or after {@link #DEFAULT_BUDGET}, whichever comes first.
   */
  public KubeRest until(long deadlineNanos) {
    return new KubeRest(client, config, budget, OptionalLong.of(deadlineNanos));
  }

  /**
   * An HTTP client for a stream of its own (the attach API's web socket) on this client's
   * connection pool, dispatcher and credentials, with no read timeout: released with this one.
   */
  public okhttp3.OkHttpClient streamingHttpClient() {
    return client.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build();
  }

  /**
   * Closes the idle connections of this client's pool and ends its dispatcher's threads: what
   * the owning connection does when its runtime closes. Calls in flight finish or fail on their
   * own; this client is not used again.
   */
  public void release() {
    client.getHttpClient().dispatcher().executorService().shutdown();
    client.getHttpClient().connectionPool().evictAll();
  }

  /** The same client, keeping on for {@code budget} per call (tests shorten it). */
  public KubeRest withBudget(Duration budget) {
    return new KubeRest(client, config, budget, deadlineNanos);
  }

  /**
   * An HTTP response: status code and body.
   *
   * @param code the HTTP status
   * @param body the body as text, empty when there was none
   * @param retries how often and how long the request was tried, when more than once
   *     (e.g. {@code "7 tries over 31 s"}); empty otherwise
   */
  public record Response(int code, String body, String retries) {
    /** An answer got at the first attempt. */
    public Response(int code, String body) {
      this(code, body, "");
    }

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
    return create(resource, namespace, object, false);
  }

  /**
   * Creates {@code object}; with {@code strict}, a field the server's schema does not know is an
   * error ({@code fieldValidation=Strict}) instead of being dropped with a warning, which matters
   * where API versions differ in fields (TrainJob's v2.0 and v2.3).
   */
  public Map<String, Object> create(ResourceRef resource, Optional<String> namespace,
      Map<String, Object> object, boolean strict) {
    Operation operation = Operation.create(resource, namespace,
        JsonTree.string(object, "metadata", "name").orElse(""));
    Response response = send("POST", operation,
        strict ? List.of(new Pair("fieldValidation", "Strict")) : List.of(), object, JSON);
    if (!response.ok()) {
      // A refusal of a Secret may quote its values (an admission policy's message, say).
      Redactor redactor = resource.isCore() && resource.kind().equals("Secret")
          ? config.redactor().withSecretValues(object) : config.redactor();
      throw ApiErrors.translate(operation, response, this::namespaceExists, redactor);
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
   * Lists a namespaced kind in every namespace ({@code /api/v1/pods}), for views of the whole
   * cluster such as the GPUs allocated per node.
   */
  public List<Map<String, Object>> listAllNamespaces(ResourceRef resource,
      Optional<String> labelSelector) {
    Operation operation = Operation.onCollection("list", resource, Optional.empty());
    String path = (resource.isCore() ? "/api/" + resource.version()
        : "/apis/" + resource.group() + "/" + resource.version()) + "/" + resource.plural();
    List<Pair> query = new ArrayList<>();
    labelSelector.ifPresent(s -> query.add(new Pair("labelSelector", s)));
    Response response = send("GET", path, operation, query, null, JSON);
    if (!response.ok()) {
      throw error(operation, response);
    }
    return JsonTree.maps(response.json(), "items");
  }

  /**
   * A list's items with the collection's resourceVersion, the point from which a watch sees every
   * later change.
   *
   * @param items the objects
   * @param resourceVersion the list's {@code metadata.resourceVersion}, empty when not reported
   */
  public record Listing(List<Map<String, Object>> items, String resourceVersion) {
    /** Copies the items. */
    public Listing {
      items = List.copyOf(items);
      Objects.requireNonNull(resourceVersion, "resourceVersion");
    }
  }

  /** Lists objects matching the field selector, with the list's resourceVersion. */
  public Listing listing(ResourceRef resource, Optional<String> namespace,
      Optional<String> fieldSelector) {
    return listing(resource, namespace, Optional.empty(), fieldSelector);
  }

  /** Lists objects matching the selectors (either may be empty), with the list's version. */
  public Listing listing(ResourceRef resource, Optional<String> namespace,
      Optional<String> labelSelector, Optional<String> fieldSelector) {
    Operation operation = Operation.onCollection("list", resource, namespace);
    List<Pair> query = new ArrayList<>();
    fieldSelector.ifPresent(s -> query.add(new Pair("fieldSelector", s)));
    labelSelector.ifPresent(s -> query.add(new Pair("labelSelector", s)));
    Response response = send("GET", operation, query, null, JSON);
    if (!response.ok()) {
      throw error(operation, response);
    }
    Map<String, Object> json = response.json();
    return new Listing(JsonTree.maps(json, "items"),
        JsonTree.string(json, "metadata", "resourceVersion").orElse(""));
  }

  /**
   * Opens a watch on the collection from {@code resourceVersion} (bookmarks allowed). The server
   * ends it after {@code serverTimeout}; the client gives up after {@code callTimeout} whatever
   * happens, because a watch has no read timeout (events may be minutes apart).
   *
   * @throws IOException when the API server cannot be reached or the call timed out
   */
  public WatchStream watch(ResourceRef resource, Optional<String> namespace,
      String fieldSelector, String resourceVersion, Duration serverTimeout, Duration callTimeout)
      throws IOException {
    return watch(resource, namespace, new Pair("fieldSelector", fieldSelector), resourceVersion,
        serverTimeout, callTimeout);
  }

  /**
   * Opens a watch on the objects of the collection carrying {@code labelSelector}; otherwise as
   * {@link #watch(ResourceRef, Optional, String, String, Duration, Duration)}.
   *
   * @throws IOException when the API server cannot be reached or the call timed out
   */
  public WatchStream watchLabelled(ResourceRef resource, Optional<String> namespace,
      String labelSelector, String resourceVersion, Duration serverTimeout, Duration callTimeout)
      throws IOException {
    return watch(resource, namespace, new Pair("labelSelector", labelSelector), resourceVersion,
        serverTimeout, callTimeout);
  }

  private WatchStream watch(ResourceRef resource, Optional<String> namespace, Pair selector,
      String resourceVersion, Duration serverTimeout, Duration callTimeout) throws IOException {
    Operation operation = Operation.onCollection("watch", resource, namespace);
    List<Pair> query = new ArrayList<>();
    query.add(new Pair("watch", "true"));
    query.add(new Pair("allowWatchBookmarks", "true"));
    query.add(selector);
    if (!resourceVersion.isEmpty()) {
      query.add(new Pair("resourceVersion", resourceVersion));
    }
    query.add(new Pair("timeoutSeconds",
        String.valueOf(Math.max(1, serverTimeout.toSeconds()))));
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", JSON);
    Call call;
    try {
      call = client.buildCall(null, operation.path(), "GET", query, new ArrayList<>(), null,
          headers, new HashMap<>(), new HashMap<>(), AUTH, null);
    } catch (ApiException e) {
      throw unreachable(operation, e);
    }
    // Same connection pool, authentication and TLS; no read timeout, a bound on the whole call.
    OkHttpClient streaming = client.getHttpClient().newBuilder()
        .readTimeout(Duration.ZERO)
        .callTimeout(Duration.ofMillis(Math.max(1, callTimeout.toMillis())))
        .build();
    Call watchCall = streaming.newCall(call.request());
    return new WatchStream(watchCall, watchCall.execute());
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
    return logBody(operation, response.body());
  }

  /**
   * Reads the last {@code tailLines} lines of the log of a container's previous instance (the one
   * that crashed before its last restart), at most {@code limitBytes} bytes: what explains a
   * CrashLoopBackOff, read while the current instance waits to be restarted. The query is the one
   * client-java builds: {@code container}, {@code limitBytes}, {@code previous}, {@code tailLines}.
   *
   * @throws KubernetesApiException e.g. 400 when the container has no previous instance
   */
  public String readPreviousLog(String namespace, String pod, String container, int tailLines,
      int limitBytes) {
    Operation operation = Operation.on("get", ResourceRef.PODS, Optional.of(namespace), pod)
        .sub("log");
    Call call;
    try {
      call = new CoreV1Api(client).readNamespacedPodLog(pod, namespace).container(container)
          .previous(true).tailLines(tailLines).limitBytes(limitBytes).buildCall(null);
    } catch (ApiException e) {
      throw unreachable(operation, e);
    }
    Response response = execute(operation, call);
    if (!response.ok()) {
      throw error(operation, response);
    }
    return logBody(operation, response.body());
  }

  /**
   * Whether {@code line} (read without a timestamp prefix) is the kubelet saying that it no
   * longer has a container's log, which it answers with HTTP 200 and this one line instead of
   * the log: it keeps one ended instance per container while a pod runs, and removes all but
   * the last once the pod is over.
   */
  public static boolean isLogGone(String line) {
    String text = line.strip();
    return text.startsWith(LOG_GONE) && text.indexOf('\n') < 0;
  }

  /** {@code body}, or a NOT_FOUND error when it is the kubelet's "log gone" line. */
  private static String logBody(Operation operation, String body) {
    if (isLogGone(body)) {
      throw new KubernetesApiException(Problem.NOT_FOUND, operation.what(),
          operation.subject(), "the kubelet no longer has this log (" + body.strip() + ")",
          "nothing to fix: the kubelet removes ended containers, and their logs with them",
          null, null);
    }
    return body;
  }

  /**
   * What a container-log request asks for.
   *
   * @param follow keep the response open and send lines as the container writes them
   * @param previous the log of the container's previous instance (before its last restart)
   * @param tailLines only the last lines
   * @param sinceTime only lines from this time, truncated to the second the API accepts
   */
  public record LogQuery(boolean follow, boolean previous, Optional<Integer> tailLines,
      Optional<Instant> sinceTime) {
    /** Checks the parts. */
    public LogQuery {
      tailLines = tailLines == null ? Optional.empty() : tailLines;
      sinceTime = sinceTime == null ? Optional.empty() : sinceTime;
    }
  }

  /**
   * Opens a container's log with {@code timestamps=true}. A followed log has no read timeout (a
   * quiet training script prints nothing for minutes); the caller closes the connection to stop.
   *
   * @throws IOException when the API server cannot be reached
   */
  public LogConnection openLog(String namespace, String pod, String container, LogQuery query)
      throws IOException {
    Operation operation = Operation.on("get", ResourceRef.PODS, Optional.of(namespace), pod)
        .sub("log");
    List<Pair> params = new ArrayList<>();
    params.add(new Pair("container", container));
    if (query.follow()) {
      params.add(new Pair("follow", "true"));
    }
    if (query.previous()) {
      params.add(new Pair("previous", "true"));
    }
    query.tailLines().ifPresent(t -> params.add(new Pair("tailLines", String.valueOf(t))));
    params.add(new Pair("timestamps", "true"));
    query.sinceTime().ifPresent(t -> params.add(new Pair("sinceTime",
        t.truncatedTo(ChronoUnit.SECONDS).toString())));
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", "text/plain, */*");
    Call call;
    try {
      call = client.buildCall(null, operation.path(), "GET", params, new ArrayList<>(), null,
          headers, new HashMap<>(), new HashMap<>(), AUTH, null);
    } catch (ApiException e) {
      throw unreachable(operation, e);
    }
    OkHttpClient streaming = client.getHttpClient().newBuilder()
        .readTimeout(query.follow() ? Duration.ZERO : Duration.ofSeconds(60)).build();
    Call streamingCall = streaming.newCall(call.request());
    return new LogConnection(streamingCall, streamingCall.execute());
  }

  /**
   * GETs {@code path}, a URL outside the resource paths (the published OpenAPI schemas under
   * {@code /openapi/v3}), and returns the answer whatever its status; {@code operation} names
   * the request in errors and retries.
   */
  public Response get(String path, Operation operation) {
    return send("GET", path, operation, List.of(), null, JSON);
  }

  /**
   * Sends {@code json} (or nothing, for a GET) through the API server's proxy to a Service or a
   * pod ({@code .../services/<name>:<port>/proxy/<path>}) once, whatever the answer: the answer
   * is the proxied server's (a model server's 500 with its error), which only the caller can
   * read, and a predict is not safe to send twice. {@code deadline} bounds the whole call.
   *
   * @throws KubernetesApiException when the API server cannot be reached
   */
  public Response proxy(String method, String path, Optional<String> json, Operation operation,
      Duration deadline) {
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", JSON);
    headers.put("Content-Type", JSON);
    Object payload = json.map(text -> (Object) text.getBytes(StandardCharsets.UTF_8))
        .orElse(null);
    try {
      Call call = client.buildCall(null, path, method, new ArrayList<>(), new ArrayList<>(),
          payload, headers, new HashMap<>(), new HashMap<>(), AUTH, null);
      call.timeout().timeout(deadline.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      try (okhttp3.Response response = call.execute()) {
        ResponseBody body = response.body();
        return new Response(response.code(), body == null ? "" : body.string());
      }
    } catch (ApiException | IOException e) {
      throw unreachable(operation, e);
    }
  }

  /** The exception for a failed response, asking about the namespace when the body is mute. */
  public KubernetesApiException error(Operation operation, Response response) {
    return ApiErrors.translate(operation, response, this::namespaceExists, config.redactor());
  }

  private Response send(String method, Operation operation, List<Pair> query, Object body,
      String contentType) {
    return send(method, operation.path(), operation, query, body, contentType);
  }

  private Response send(String method, String path, Operation operation, List<Pair> query,
      Object body, String contentType) {
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
    String method = call.request().method();
    long start = System.nanoTime();
    long deadline = deadline(start);
    for (int attempt = 1; ; attempt++) {
      Call current = attempt == 1 ? call : call.clone();
      Duration pause;
      try (okhttp3.Response response = current.execute()) {
        ResponseBody body = response.body();
        String text = body == null ? "" : body.string();
        if (!ApiRetry.temporary(method, response.code())) {
          return new Response(response.code(), text, retries(attempt, start));
        }
        pause = ApiRetry.pause(attempt, Optional.ofNullable(response.header("Retry-After")));
        if (!fits(pause, deadline)) {
          return new Response(response.code(), text, retries(attempt, start));
        }
        announce(operation, attempt, "answered HTTP " + response.code(), deadline);
      } catch (IOException e) {
        pause = ApiRetry.pause(attempt, Optional.empty());
        if (!ApiRetry.temporary(method, e) || !fits(pause, deadline)) {
          throw unreachable(operation, e, retries(attempt, start));
        }
        announce(operation, attempt, "did not answer (" + e.getClass().getSimpleName() + ")",
            deadline);
      }
      Timings.sleep(pause, operation.what());
    }
  }

  private long deadline(long now) {
    long own = now + budget.toNanos();
    return deadlineNanos.isPresent() && deadlineNanos.getAsLong() - own < 0
        ? deadlineNanos.getAsLong() : own;
  }

  private static boolean fits(Duration pause, long deadline) {
    return deadline - (System.nanoTime() + pause.toNanos()) > 0;
  }

  // Once per call at WARN, so a user waiting on a hiccuping server knows why; then quietly.
  private void announce(Operation operation, int attempt, String what, long deadline) {
    long left = Math.max(0, (deadline - System.nanoTime()) / 1_000_000_000L);
    if (attempt == 1) {
      LOG.warn("The API server at {} {} to {}; trying again for up to {} s", config.server(),
          what, operation.what(), left);
    } else {
      LOG.debug("The API server at {} {} to {} (attempt {}); {} s left", config.server(), what,
          operation.what(), attempt, left);
    }
  }

  private static String retries(int attempts, long start) {
    if (attempts == 1) {
      return "";
    }
    long seconds = Math.round((System.nanoTime() - start) / 1e9);
    return attempts + " tries over " + seconds + " s";
  }

  private KubernetesApiException unreachable(Operation operation, Exception e) {
    return unreachable(operation, e, "");
  }

  private KubernetesApiException unreachable(Operation operation, Exception e, String retries) {
    String detail = e.getMessage() == null ? "" : ": " + config.redactor().redact(e.getMessage());
    boolean silent = e instanceof java.net.SocketTimeoutException;
    return new KubernetesApiException(Problem.UNREACHABLE, operation.what(), operation.subject(),
        (silent ? "the API server at " + config.server() + " did not answer"
            : "cannot reach the API server at " + config.server())
            + " (" + e.getClass().getSimpleName() + detail + ")"
            + (retries.isEmpty() ? "" : "; " + retries),
        "check that the cluster is up and that "
            + config.context().map(c -> "context '" + c + "'").orElse("the configuration")
            + " points at it: kubectl cluster-info", null, e);
  }
}

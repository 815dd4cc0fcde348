package dev.fairing4j.core.testing;

import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * An in-JVM Kubernetes API server for tests: fabric8's {@link KubernetesMockServer} in mixed mode
 * (scripted expectations first, everything else served by an in-memory CRUD store that knows the
 * kubeflow.org/v1 job kinds), wired to a client-java {@link ApiClient} and to a kubeconfig file.
 *
 * <pre>{@code
 * @RegisterExtension static final KubernetesApiFixture K8S = new KubernetesApiFixture();
 *
 * new CustomObjectsApi(K8S.apiClient()).createNamespacedCustomObject(
 *     "kubeflow.org", "v1", "default", "pytorchjobs", job).execute();
 * K8S.server().expect().post().withPath("/apis/kubeflow.org/v1/namespaces/default/pytorchjobs")
 *     .andReturn(403, status).once();                     // scripted: wins over CRUD
 * assertThat(K8S.requestCount()).isZero();                 // "nothing reached the API server"
 * }</pre>
 *
 * <p>By default the store, the expectations and the request log are reset before each test
 * ({@link #keepStateBetweenTests()} turns that off). On a static field the server runs once per
 * class; on an instance field, once per test.
 *
 * <p>client-java decodes untyped custom objects with Gson, so numbers read back through
 * {@code CustomObjectsApi} are {@code Double}s ({@code replicas: 1.0}): compare them as numbers.
 *
 * <p>Where it differs from a real API server (measured with client-java 27): no live watch (a
 * watch request gets 400; informers degrade to re-listing; use a mockwebserver3 dispatcher for
 * watch tests), pod logs only by expectation, {@code in}/{@code notin} label selectors ignored,
 * 404 with an empty body, {@code replaceNamespacedCustomObjectStatus} on an object without status
 * hangs (send a merge patch to {@code /status} instead).
 */
public final class KubernetesApiFixture implements BeforeAllCallback, AfterAllCallback,
    BeforeEachCallback, AfterEachCallback, ParameterResolver {

  /** The bearer token written into {@link #kubeconfig()}; the mock does not check it. */
  public static final String TOKEN = "fairing4j-test-token";
  /** The namespace of the kubeconfig's context. */
  public static final String NAMESPACE = "default";
  private static final Map<String, String> KUBEFLOW_PLURALS = Map.of(
      "PyTorchJob", "pytorchjobs", "TFJob", "tfjobs", "MPIJob", "mpijobs",
      "XGBoostJob", "xgboostjobs", "JAXJob", "jaxjobs", "PaddleJob", "paddlejobs");

  // a line per request at INFO drowns test output; requestLines() has the same information.
  // Held in a field because java.util.logging forgets the level of an unreferenced logger.
  private static final Logger MOCK_LOG = Logger.getLogger(MockWebServer.class.getName());

  static {
    MOCK_LOG.setLevel(Level.WARNING);
  }

  private final List<RecordedRequest> requests = new ArrayList<>();
  private boolean resetBeforeEachTest = true;
  private KubernetesMockServer server;
  private ApiClient apiClient;
  private Path kubeconfig;
  private boolean startedForOneTest;

  /** A fixture that resets the store before each test; started by JUnit or {@link #start()}. */
  public KubernetesApiFixture() {}

  /** Keeps objects, expectations and the request log from one test to the next. */
  public KubernetesApiFixture keepStateBetweenTests() {
    resetBeforeEachTest = false;
    return this;
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  @Override
  public void beforeAll(ExtensionContext context) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    stop();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (!isRunning()) {
      start();
      startedForOneTest = true;
    } else if (resetBeforeEachTest) {
      reset();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (startedForOneTest) {
      startedForOneTest = false;
      stop();
    }
  }

  /** Starts the mock on a free loopback port and writes the kubeconfig. */
  public synchronized void start() {
    if (isRunning()) {
      return;
    }
    List<CustomResourceDefinitionContext> crds = new ArrayList<>();
    KUBEFLOW_PLURALS.forEach((kind, plural) -> crds.add(new CustomResourceDefinitionContext.Builder()
        .withGroup("kubeflow.org").withVersion("v1").withKind(kind).withPlural(plural)
        .withScope("Namespaced").withStatusSubresource(true).build()));
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    KubernetesMixedDispatcher dispatcher = new KubernetesMixedDispatcher(responses, crds) {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        synchronized (requests) {
          requests.add(request);
        }
        return super.dispatch(request);
      }
    };
    server = new KubernetesMockServer(new Context(), new MockWebServer(), responses, dispatcher,
        false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    apiClient = new ClientBuilder().setBasePath(url())
        // generous but finite: a hung mock call fails the test instead of stalling the build
        .setReadTimeout(Duration.ofSeconds(30))
        .build();
    try {
      kubeconfig = Files.createTempFile("fairing4j-kubeconfig-", ".yaml");
      writeKubeconfig(kubeconfig, url(), NAMESPACE);
    } catch (IOException e) {
      stop();
      throw new UncheckedIOException("cannot write the kubeconfig", e);
    }
  }

  /** Shuts the mock down and deletes the kubeconfig; does nothing when not running. */
  public synchronized void stop() {
    if (server != null) {
      server.destroy();
      server = null;
    }
    apiClient = null;
    if (kubeconfig != null) {
      try {
        Files.deleteIfExists(kubeconfig);
      } catch (IOException ignored) {
        // a temp file left behind must not fail the test
      }
      kubeconfig = null;
    }
  }

  /** Empties the CRUD store, drops scripted expectations and clears the request log. */
  public synchronized void reset() {
    requireStarted().reset();
    synchronized (requests) {
      requests.clear();
    }
  }

  /** Whether the mock is serving. */
  public synchronized boolean isRunning() {
    return server != null;
  }

  // ---- accessors ---------------------------------------------------------------------------

  /** A client-java ApiClient for the mock (plain HTTP, 30 s read timeout, no credentials). */
  public synchronized ApiClient apiClient() {
    requireStarted();
    return apiClient;
  }

  /** The fabric8 server, for scripted expectations: {@code server().expect()...}. */
  public synchronized KubernetesMockServer server() {
    return requireStarted();
  }

  /** The API server URL, {@code http://127.0.0.1:PORT}, without a trailing slash. */
  public synchronized String url() {
    return "http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":"
        + requireStarted().getPort();
  }

  /**
   * A kubeconfig file with one cluster, user (token {@value #TOKEN}) and context (namespace
   * {@value #NAMESPACE}) pointing at the mock, for code that loads its own configuration.
   */
  public synchronized Path kubeconfig() {
    requireStarted();
    return kubeconfig;
  }

  /** How many requests reached the mock since it started or since the last {@link #reset()}. */
  public int requestCount() {
    synchronized (requests) {
      return requests.size();
    }
  }

  /** The requests since start or the last reset, oldest first. */
  public List<RecordedRequest> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** Each request as {@code "METHOD /path?query"}, oldest first, for readable assertions. */
  public List<String> requestLines() {
    return requests().stream().map(r -> r.getMethod() + " " + r.getPath()).toList();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == KubernetesApiFixture.class || type == ApiClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == ApiClient.class ? apiClient() : this;
  }

  @Override
  public String toString() {
    return "KubernetesApiFixture[" + (isRunning() ? url() : "stopped") + "]";
  }

  private KubernetesMockServer requireStarted() {
    if (server == null) {
      throw new IllegalStateException("the Kubernetes mock is not started: register the extension"
          + " with @RegisterExtension or call start()");
    }
    return server;
  }

  /**
   * Writes a kubeconfig to {@code file} whose only context points at {@code server} with the
   * dummy bearer token {@link #TOKEN} and {@code namespace}; for fakes beside this fixture (a
   * live-watch server, say) that client code reaches through {@code Clusters.kubernetes()}.
   */
  public static Path writeKubeconfig(Path file, String server, String namespace) {
    try {
      Files.writeString(file, """
          apiVersion: v1
          kind: Config
          clusters:
            - name: fairing4j-mock
              cluster:
                server: %s
          users:
            - name: fairing4j-mock
              user:
                token: %s
          contexts:
            - name: fairing4j-mock
              context:
                cluster: fairing4j-mock
                user: fairing4j-mock
                namespace: %s
          current-context: fairing4j-mock
          preferences: {}
          """.formatted(server, TOKEN, namespace));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the kubeconfig " + file, e);
    }
    return file;
  }
}

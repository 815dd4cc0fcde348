package dev.fairing4j.core.testing;

import dev.fairing4j.core.testing.KubeApiServer.User;
import io.kubernetes.client.openapi.ApiClient;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 access to the JVM's shared real API server ({@link KubeApiServer#shared()}), each test
 * in a namespace of its own, created on first use and named after the test.
 *
 * <pre>{@code
 * @RegisterExtension static final RealKubernetes K8S = RealKubernetes.shared();
 *
 * Cluster cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig());   // SDK user, test ns
 * ... submit ...
 * assertThat(K8S.requests()).extracting(Request::line).contains("create /apis/...");
 * }</pre>
 *
 * <p>{@link #requests()} are the SDK user's requests since the test began, from the server's
 * audit log; the fixture's own calls ({@link #apiClient()}, {@link #server()}{@code .request})
 * are not among them.
 */
public final class RealKubernetes implements BeforeEachCallback, ParameterResolver {
  private final boolean controllers;
  private final List<String> crds;
  private String testName = "test";
  private String namespace;
  private AuditLog.Mark start;

  private RealKubernetes(boolean controllers, List<String> crds) {
    this.controllers = controllers;
    this.crds = crds;
  }

  /** The shared server with the kubeflow.org/v1 CRDs, without controllers. */
  public static RealKubernetes shared() {
    return new RealKubernetes(false, List.of());
  }

  /** The same, with kube-controller-manager running (Job pods, garbage collection, binding). */
  public RealKubernetes withControllers() {
    return new RealKubernetes(true, crds);
  }

  /** The same, with the CRDs of these test-jar resources applied too. */
  public RealKubernetes withCrds(List<String> resources) {
    return new RealKubernetes(controllers,
        java.util.stream.Stream.concat(crds.stream(), resources.stream()).toList());
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    KubeApiServer server = server();
    namespace = null;
    testName = context.getTestMethod().map(m -> m.getName()).orElse("test");
    start = server.audit().mark();
  }

  /** The server, started (and prepared as asked) on first use. */
  public KubeApiServer server() {
    KubeApiServer server = KubeApiServer.shared();
    if (controllers) {
      server.withControllers();
    }
    if (!crds.isEmpty()) {
      server.applyCrds(crds);
    }
    return server;
  }

  /** This test's namespace, created on first call. */
  public synchronized String namespace() {
    if (namespace == null) {
      namespace = server().createNamespace(shorten(testName));
    }
    return namespace;
  }

  /** A kubeconfig of the SDK user whose context is this test's namespace. */
  public Path kubeconfig() {
    return server().kubeconfig(User.SDK, namespace());
  }

  /** A kubeconfig of {@code user} whose context is this test's namespace. */
  public Path kubeconfig(User user) {
    return server().kubeconfig(user, namespace());
  }

  /** A client-java client as the fixture user, for a test's own setup and checks. */
  public ApiClient apiClient() {
    return server().apiClient();
  }

  /** The SDK user's requests since this test began, oldest first. */
  public List<AuditLog.Request> requests() {
    return server().audit().since(start, User.SDK);
  }

  /** The SDK user's requests as {@code "verb /uri"} lines, oldest first. */
  public List<String> requestLines() {
    return requests().stream().map(AuditLog.Request::line).toList();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == KubeApiServer.class || type == ApiClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == ApiClient.class ? apiClient() : server();
  }

  private static String shorten(String name) {
    // camelCase test names read well as kebab-case namespaces
    String kebab = name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    return kebab.length() > 40 ? kebab.substring(0, 40) : kebab;
  }

  @Override
  public String toString() {
    return "RealKubernetes[" + (namespace == null ? "no namespace yet" : namespace) + "]";
  }
}

package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An API server is allowed to hiccup: the SDK's calls ride out 429 answers until the caller's
 * deadline and only then fail, naming the last error and how long they tried; a server that
 * accepts connections but never answers costs a bounded time and is named.
 *
 * <p>The 429s are the real server's own: API Priority and Fairness, configured with a
 * FlowSchema that sends one user's requests in the test's namespace to a priority level with no
 * seats, rejects them exactly as a saturated cluster does (429 with {@code Retry-After}). The
 * user is an ordinary one, admin of the namespace through a RoleBinding: members of
 * {@code system:masters} (the usual test user) are exempt from flow control. The
 * silent server is a plain socket that accepts and never writes: a real API server cannot be
 * made to hang on demand. Restarts in the middle of a wait are in {@code WatchedWaitIT} and
 * {@code SharedWatchLoadIT}.
 */
class ApiHiccupsIT {
  @RegisterExtension static final RealKubernetes K8S = RealKubernetes.shared();
  private static final String APF = "/apis/flowcontrol.apiserver.k8s.io/v1";

  private final RealApiObjects api = new RealApiObjects(K8S);
  private final List<String> cleanup = new ArrayList<>();

  @TempDir Path dir;

  @AfterEach
  void removeFlowControl() {
    cleanup.forEach(path -> K8S.server().send("DELETE", path, null));
  }

  @Test
  void aBurstOf429sIsRiddenOutAndTheCallReturnsWhatTheServerHas() throws Exception {
    PlayedOperator operator = new PlayedOperator(K8S.server(), api.ns());
    operator.pyTorchJob("busy", 1, true);
    operator.pyTorchPhase("busy", "Running");
    TrainingJob job = RealApiObjects.cluster(namespaceAdmin())
        .attach("kubeflow.org/v1", "PyTorchJob", "busy", api.ns());

    try (SlowWebhook webhook = SlowWebhook.start(K8S.server(), api.ns(), Duration.ofSeconds(6))) {
      oneSeatOnly();
      AuditLog.Mark mark = K8S.server().audit().mark();
      holdTheSeat(webhook);

      JobStatus status = job.status();

      assertThat(status.phase()).isEqualTo(JobPhase.RUNNING);
      assertThat(K8S.server().audit().since(mark, User.UNPRIVILEGED))
          .extracting(AuditLog.Request::status).contains(429, 200);
    }
  }

  @Test
  void endless429sFailAtTheDeadlineNamingTheLastAnswer() throws Exception {
    PlayedOperator operator = new PlayedOperator(K8S.server(), api.ns());
    operator.pyTorchJob("saturated", 0, true);
    TrainingJob job = RealApiObjects.cluster(namespaceAdmin())
        .withTimings(RealApiObjects.TIMINGS.withRequests(Duration.ofSeconds(5),
            Duration.ofSeconds(3)))
        .attach("kubeflow.org/v1", "PyTorchJob", "saturated", api.ns());

    try (SlowWebhook webhook = SlowWebhook.start(K8S.server(), api.ns(), Duration.ofSeconds(15))) {
      oneSeatOnly();
      AuditLog.Mark mark = K8S.server().audit().mark();
      holdTheSeat(webhook);

      Throwable thrown = catchThrowable(job::status);

      assertThat(thrown).isInstanceOfSatisfying(KubernetesApiException.class, e -> {
        assertThat(e.httpStatus()).contains(429);
        assertThat(e.getMessage()).contains("HTTP 429")
            .containsPattern("still so after \\d+ tries over [23] s");
      });
      assertThat(K8S.server().audit().since(mark, User.UNPRIVILEGED).stream()
          .filter(r -> r.status() == 429).count()).isGreaterThan(1);
    }
  }

  @Test
  void aServerThatNeverAnswersIsNamedAfterBoundedTries() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> accepted = new ArrayList<>();
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            Socket socket = silent.accept();
            accepted.add(socket);  // kept open, never written to
          }
        } catch (IOException closed) {
          // the test is over
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      String url = "http://127.0.0.1:" + silent.getLocalPort();
      Path kubeconfig = Files.writeString(dir.resolve("silent"), """
          apiVersion: v1
          kind: Config
          clusters: [{name: c, cluster: {server: %s}}]
          users: [{name: u, user: {token: t}}]
          contexts: [{name: x, context: {cluster: c, user: u, namespace: ns}}]
          current-context: x
          """.formatted(url));
      KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(kubeconfig)
          .withTimings(new Timings(Duration.ofMillis(100), Duration.ofMillis(100),
              Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(3)));

      Throwable thrown = catchThrowable(() -> cluster.attach("kubeflow.org/v1", "PyTorchJob", "x", "ns").status());

      assertThat(thrown).isInstanceOfSatisfying(KubernetesApiException.class, e -> {
        assertThat(e.problem()).isEqualTo(Problem.UNREACHABLE);
        assertThat(e.getMessage()).contains("the API server at " + url + " did not answer")
            .containsPattern("\\d+ tries over \\d+ s");
      });
      assertThat(accepted.size()).as("connections the SDK opened").isGreaterThan(1);
      for (Socket socket : accepted) {
        InputStream ignored = socket.getInputStream();
        socket.close();
      }
    }
  }

  /** A kubeconfig of the ordinary user, made admin of the test's namespace. */
  private Path namespaceAdmin() {
    K8S.server().request("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/" + api.ns()
        + "/rolebindings", Map.of("apiVersion", "rbac.authorization.k8s.io/v1",
        "kind", "RoleBinding", "metadata", Map.of("name", "admin"),
        "roleRef", Map.of("apiGroup", "rbac.authorization.k8s.io", "kind", "ClusterRole",
            "name", "cluster-admin"),
        "subjects", List.of(Map.of("apiGroup", "rbac.authorization.k8s.io", "kind", "User",
            "name", User.UNPRIVILEGED.username()))));
    return K8S.kubeconfig(User.UNPRIVILEGED);
  }

  /**
   * Gives the ordinary user's requests in the test's namespace a priority level with no seats of
   * its own and no borrowing: one request runs at a time (the server still lets one through when
   * nothing runs), every other is rejected with 429. Waits until the server applies it.
   */
  private void oneSeatOnly() {
    String name = api.ns();
    K8S.server().request("POST", APF + "/prioritylevelconfigurations", Map.of(
        "apiVersion", "flowcontrol.apiserver.k8s.io/v1", "kind", "PriorityLevelConfiguration",
        "metadata", Map.of("name", name),
        "spec", Map.of("type", "Limited", "limited", Map.of(
            "nominalConcurrencyShares", 0, "lendablePercent", 0, "borrowingLimitPercent", 0,
            "limitResponse", Map.of("type", "Reject")))));
    cleanup.add(APF + "/prioritylevelconfigurations/" + name);
    Map<String, Object> schema = K8S.server().request("POST", APF + "/flowschemas", Map.of(
        "apiVersion", "flowcontrol.apiserver.k8s.io/v1", "kind", "FlowSchema",
        "metadata", Map.of("name", name),
        "spec", Map.of("priorityLevelConfiguration", Map.of("name", name),
            "matchingPrecedence", 100,
            "rules", List.of(Map.of(
                "subjects", List.of(Map.of("kind", "User",
                    "user", Map.of("name", User.UNPRIVILEGED.username()))),
                "resourceRules", List.of(Map.of("verbs", List.of("*"),
                    "apiGroups", List.of("*"), "resources", List.of("*"),
                    "namespaces", List.of(api.ns()))))))));
    cleanup.add(0, APF + "/flowschemas/" + name);
    String uid = String.valueOf(((Map<?, ?>) schema.get("metadata")).get("uid"));
    PlayedOperator.await("the FlowSchema in force", () -> K8S.server().send(User.UNPRIVILEGED,
        "GET", "/api/v1/namespaces/" + api.ns() + "/configmaps", null, "application/json")
        .header("X-Kubernetes-PF-FlowSchema-UID").filter(uid::equals).isPresent());
  }

  /**
   * Creates a ConfigMap as the ordinary user, which the webhook holds: its request takes the only
   * seat until the webhook answers. Returns once the server is waiting on the webhook.
   */
  private CompletableFuture<?> holdTheSeat(SlowWebhook webhook) throws InterruptedException {
    CompletableFuture<?> holder = CompletableFuture.runAsync(() -> K8S.server().send(
        User.UNPRIVILEGED, "POST", "/api/v1/namespaces/" + api.ns() + "/configmaps",
        Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", "holder")),
        "application/json"));
    webhook.awaitCalled();
    return holder;
  }
}

package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer.User;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/** The real API server fixture does what the tests built on it rely on. */
class KubeApiServerIT {

  @Test
  void sharedServerServesTheKubeflowCrdsWithStrictFieldValidation() {
    KubeApiServer server = KubeApiServer.shared();
    String ns = server.createNamespace("strict");
    Map<String, Object> job = Map.of("apiVersion", "kubeflow.org/v1", "kind", "PyTorchJob",
        "metadata", Map.of("name", "ok"),
        "spec", Map.of("pytorchReplicaSpecs", Map.of("Master", Map.of("replicas", 1,
            "template", Map.of("spec", Map.of("containers", List.of(
                Map.of("name", "pytorch", "image", "busybox")))))), "bogusField", 1));
    Response rejected = server.send(User.SDK, "POST",
        "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs?fieldValidation=Strict", job,
        "application/json");
    assertThat(rejected.status()).isEqualTo(400);
    assertThat(rejected.body()).contains("unknown field \\\"spec.bogusField\\\"");

    @SuppressWarnings("unchecked")
    Map<String, Object> spec = new java.util.HashMap<>((Map<String, Object>) job.get("spec"));
    spec.remove("bogusField");
    Map<String, Object> valid = new java.util.HashMap<>(job);
    valid.put("spec", spec);
    Response created = server.send(User.SDK, "POST",
        "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs?fieldValidation=Strict", valid,
        "application/json");
    assertThat(created.status()).isEqualTo(201);
  }

  @Test
  void unprivilegedUserIsDeniedAndTheAuditLogNamesEachRequestOnce() {
    KubeApiServer server = KubeApiServer.shared();
    String ns = server.createNamespace("audit");
    AuditLog.Mark mark = server.audit().mark();

    Response denied = server.send(User.UNPRIVILEGED, "GET",
        "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs", null, "application/json");
    server.send(User.SDK, "GET", "/api/v1/namespaces/" + ns + "/pods", null, "application/json");
    server.request("GET", "/api/v1/namespaces/" + ns, null);  // the fixture: not audited

    assertThat(denied.status()).isEqualTo(403);
    assertThat(server.audit().since(mark, User.SDK)).extracting(AuditLog.Request::line)
        .containsExactly("list /api/v1/namespaces/" + ns + "/pods");
    assertThat(server.audit().since(mark)).extracting(AuditLog.Request::user)
        .containsExactly(User.UNPRIVILEGED.username(), User.SDK.username());
  }

  @Test
  void restartedApiServerKeepsObjectsAndAnswersTemporaryErrorsWhileStarting() {
    try (KubeApiServer server = KubeApiServer.start()) {
      String ns = server.createNamespace("restart");
      String jobs = "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs";
      server.request("POST", jobs, Map.of("apiVersion", "kubeflow.org/v1", "kind", "PyTorchJob",
          "metadata", Map.of("name", "kept"), "spec", Map.of("pytorchReplicaSpecs", Map.of())));
      server.stopApiServer();
      assertThat(server.isApiServerRunning()).isFalse();
      server.startApiServer();

      // Right after a start: connection refused, then 429/503 with Retry-After, then 200.
      List<Integer> seen = new ArrayList<>();
      Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
      int status = 0;
      while (status != 200 && Instant.now().isBefore(deadline)) {
        try {
          status = server.send("GET", jobs + "/kept", null).status();
          if (seen.isEmpty() || seen.get(seen.size() - 1) != status) {
            seen.add(status);
          }
        } catch (java.io.UncheckedIOException refused) {
          // not listening yet
        }
      }
      assertThat(status).as("statuses seen: %s", seen).isEqualTo(200);
      // Seen here: 503 "not all HTTP paths installed" for custom resources, then 200.
      assertThat(seen).as("statuses seen").allMatch(s -> s == 200 || s == 429 || s == 503);
      server.awaitReady(Duration.ofSeconds(30));
    }
  }

  @Test
  void controllersRunJobPods() throws Exception {
    KubeApiServer server = KubeApiServer.shared().withControllers();
    String ns = server.createNamespace("jobs");
    server.request("POST", "/apis/batch/v1/namespaces/" + ns + "/jobs", Map.of(
        "apiVersion", "batch/v1", "kind", "Job", "metadata", Map.of("name", "indexed"),
        "spec", Map.of("completions", 2, "parallelism", 2, "completionMode", "Indexed",
            "template", Map.of("spec", Map.of("restartPolicy", "Never",
                "containers", List.of(Map.of("name", "c", "image", "busybox")))))));
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    List<?> pods = List.of();
    while (pods.size() < 2 && Instant.now().isBefore(deadline)) {
      pods = (List<?>) server.request("GET", "/api/v1/namespaces/" + ns
          + "/pods?labelSelector=job-name%3Dindexed", null).get("items");
      Thread.sleep(200);
    }
    assertThat(pods).hasSize(2);
  }

  @Test
  void missingBinaryDirectoryFailsWithHowToGetTheBinaries(@TempDir Path empty) throws Exception {
    String before = System.getProperty(KubeBinaries.PROPERTY);
    System.setProperty(KubeBinaries.PROPERTY, empty.toString());
    try {
      assertThatThrownBy(() -> KubeBinaries.require("kube-scheduler-not-resolved-yet"))
          .isInstanceOf(AssertionFailedError.class)
          .hasMessageContaining(empty.resolve("kube-scheduler-not-resolved-yet.xz").toString())
          .hasMessageContaining("FAIRING4J_K8S=../shared/k8s")
          .hasMessageContaining("setup-envtest");
      System.setProperty(KubeBinaries.PROPERTY, empty.resolve("nope").toString());
      assertThatThrownBy(() -> KubeBinaries.require("kube-scheduler-not-resolved-yet"))
          .hasMessageContaining("is not a directory");
      assertThat(Files.exists(empty.resolve("nope"))).isFalse();
    } finally {
      if (before == null) {
        System.clearProperty(KubeBinaries.PROPERTY);
      } else {
        System.setProperty(KubeBinaries.PROPERTY, before);
      }
    }
  }
}

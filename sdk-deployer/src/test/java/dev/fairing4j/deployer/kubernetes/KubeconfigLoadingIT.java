package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeEnvironment;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kubeconfig files merged as kubectl merges them, against a real API server that checks what it
 * is given: the cluster (URL and CA) of the first file and the user (token) of the second reach
 * the server together, in the merged context's namespace; a configuration mistake sends nothing
 * at all, as the server's audit log shows. The file handling itself is
 * {@link KubeconfigLoadingTest}.
 */
class KubeconfigLoadingIT {
  /** Not a token of the server: a request with it would be answered 401. */
  private static final String FIRST_TOKEN = "first-file-token-9f8e7d6c5b4a";

  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared();

  @TempDir Path dir;
  private final RealApiObjects api = new RealApiObjects(K8S);
  private Path first;
  private Path second;
  private String secondToken;

  @BeforeEach
  void writeFiles() throws Exception {
    Files.createDirectories(dir.resolve("a"));
    Files.createDirectories(dir.resolve("b"));
    first = dir.resolve("a/config");
    second = dir.resolve("b/config");
    secondToken = api.server().token(User.SDK);
    String ca = Base64.getEncoder().encodeToString(api.server().caPem()
        .getBytes(StandardCharsets.US_ASCII));
    // File 1: the real cluster, a context of its own, and the current context (set to a context
    // that only file 2 defines).
    Files.writeString(first, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: shared
          cluster:
            server: %s
            certificate-authority-data: %s
        contexts:
        - name: first-ctx
          context:
            cluster: shared
            user: first-user
        users:
        - name: first-user
          user:
            token: %s
        current-context: from-second
        """.formatted(api.server().url(), ca, FIRST_TOKEN));
    // File 2: the context in use, its user, a cluster of the same name (ignored: file 1 wins)
    // and another current-context (ignored: file 1 set one).
    Files.writeString(second, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: shared
          cluster:
            server: https://ignored.example.com:6443
            certificate-authority: certs/ca.crt
        contexts:
        - name: from-second
          context:
            cluster: shared
            user: second-user
            namespace: %s
        users:
        - name: second-user
          user:
            token: %s
        current-context: first-ctx
        """.formatted(api.ns(), secondToken));
  }

  @Test
  void kubeconfigFilesAreMergedLikeKubectl() {
    KubernetesCluster cluster = Clusters.kubernetes().withEnvironment(new KubeEnvironment(
        Map.of("KUBECONFIG", first + File.pathSeparator + second), dir.resolve("home"),
        dir.resolve("no-sa"))).withTimings(RealApiObjects.TIMINGS);

    assertThat(cluster.activeContext()).contains("from-second");
    assertThat(cluster.server()).isEqualTo(api.server().url());
    assertThat(cluster.defaultNamespace()).isEqualTo(api.ns());

    // Requests go to the merged cluster, trusting its CA, with file 2's user, in the context's
    // namespace.
    cluster.submit(TestJobs.pyTorchJob("mnist", cluster.defaultNamespace()),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE);
    assertThat(api.get(api.jobs() + "/mnist")).isNotEmpty();
    assertThat(K8S.requests()).isNotEmpty().allSatisfy(r -> assertThat(r.path())
        .contains("/namespaces/" + api.ns() + "/"));
  }

  @Test
  void storedJobIsReadBackInTheMergedContextsNamespace() {
    KubernetesCluster cluster = RealApiObjects.cluster(first).kubeconfig(first, second);
    TrainingJob job = cluster.submit(TestJobs.pyTorchJob("mnist", cluster.defaultNamespace()),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE);

    assertThat(job.namespace()).isEqualTo(api.ns());
    assertThat(JsonTree.text(api.get(api.jobs() + "/mnist"), "metadata", "name"))
        .isEqualTo(Optional.of("mnist"));
    assertThat(job.status().phase()).hasToString("Pending");
    assertThat(K8S.requests()).extracting(AuditLog.Request::user)
        .containsOnly(User.SDK.username());
  }

  @Test
  void aUserWithAClientCertificateAndATokenSendsTheTokenAsKubectlDoes() throws Exception {
    // client-java alone picks the certificate and drops the token: anonymous on this server
    List<String> pem = api.server().servingCertificateAndKeyPem();
    Base64.Encoder b64 = Base64.getEncoder();
    Path both = Files.writeString(dir.resolve("both"), """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: u
          user:
            client-certificate-data: %s
            client-key-data: %s
            token: %s
        contexts:
        - name: ctx
          context: {cluster: c, user: u, namespace: %s}
        current-context: ctx
        """.formatted(api.server().url(),
        b64.encodeToString(api.server().caPem().getBytes(StandardCharsets.US_ASCII)),
        b64.encodeToString(pem.get(0).getBytes(StandardCharsets.US_ASCII)),
        b64.encodeToString(pem.get(1).getBytes(StandardCharsets.US_ASCII)),
        secondToken, api.ns()));
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(both)
        .withTimings(RealApiObjects.TIMINGS);

    cluster.submit(TestJobs.pyTorchJob("mnist", api.ns()), BuildContext.empty(),
        SubmitOptions.DEFAULT, ProgressListener.NONE);

    assertThat(api.get(api.jobs() + "/mnist")).isNotEmpty();
    assertThat(K8S.requests()).isNotEmpty().extracting(AuditLog.Request::user)
        .containsOnly(User.SDK.username());
  }

  @Test
  void anUnknownContextListsTheAvailableOnesAndSendsNothing() {
    AuditLog.Mark mark = api.server().audit().mark();
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(first, second).context("prod");

    assertThatThrownBy(() -> cluster.submit(TestJobs.pyTorchJob("mnist", api.ns()),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("context");
          assertThat(e.getMessage()).contains("context 'prod' is not defined in " + first)
              .contains("available contexts: first-ctx, from-second")
              .doesNotContain(FIRST_TOKEN).doesNotContain(secondToken);
        });
    assertThat(api.server().audit().since(mark)).isEmpty();
  }

  @Test
  void aBrokenFileIsNamedWithoutQuotingItAndSendsNothing() throws Exception {
    AuditLog.Mark mark = api.server().audit().mark();
    Path broken = dir.resolve("broken");
    Files.writeString(broken, "users:\n- name: u\n  user:\n    token: " + secondToken
        + "\n  : [unbalanced\n");
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(broken);

    assertThatThrownBy(() -> cluster.submit(TestJobs.pyTorchJob("mnist", api.ns()),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("kubeconfig");
          assertThat(e.getMessage()).contains("file " + broken + " is not a valid kubeconfig")
              .contains("line").doesNotContain(secondToken);
          assertThat(e.getCause()).isNull();
        });
    assertThatThrownBy(() -> Clusters.kubernetes().kubeconfig(dir.resolve("absent")).server())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("file " + dir.resolve("absent") + " does not exist");
    assertThat(api.server().audit().since(mark)).isEmpty();
  }
}

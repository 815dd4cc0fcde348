package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeEnvironment;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configuration is found and merged as kubectl does, and every mistake in it is reported naming
 * the file or context, without credentials. Files only: what the merged configuration sends to a
 * real API server, and that a broken one sends nothing, is {@link KubeconfigLoadingIT}.
 */
class KubeconfigLoadingTest {
  /** Where the files' cluster is; nothing listens there, and nothing here connects. */
  private static final String SERVER = "https://127.0.0.1:6443";
  private static final String FIRST_TOKEN = "first-file-token-9f8e7d6c5b4a";
  private static final String SECOND_TOKEN = "second-file-token-1a2b3c4d5e6f";

  @TempDir Path dir;
  private Path first;
  private Path second;

  @BeforeEach
  void start() throws Exception {
    Files.createDirectories(dir.resolve("a"));
    Files.createDirectories(dir.resolve("b"));
    first = dir.resolve("a/config");
    second = dir.resolve("b/config");
    // File 1: the real cluster, a context of its own, and the current context (set to a context
    // that only file 2 defines).
    Files.writeString(first, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: shared
          cluster:
            server: %s
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
        """.formatted(SERVER, FIRST_TOKEN));
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
            namespace: team
        users:
        - name: second-user
          user:
            token: %s
        current-context: first-ctx
        """.formatted(SECOND_TOKEN));
  }

  private KubeEnvironment env(Map<String, String> variables) {
    return new KubeEnvironment(variables, dir.resolve("home"), dir.resolve("no-sa"));
  }

  @Test
  void explicitFilesMergeTheSameWayAndChoicesOverrideTheFiles() {
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(first, second);
    assertThat(cluster.activeContext()).contains("from-second");

    KubernetesCluster chosen = cluster.context("first-ctx").namespace("elsewhere");
    assertThat(chosen.activeContext()).contains("first-ctx");
    assertThat(chosen.defaultNamespace()).isEqualTo("elsewhere");
    assertThat(cluster.context("first-ctx").defaultNamespace()).isEqualTo("default");
    assertThat(cluster.context()).isEmpty(); // values: the original is unchanged
  }

  @Test
  void kubeconfigVariableSkipsMissingFilesAndHomeIsTheFallback() throws Exception {
    KubernetesCluster viaVariable = Clusters.kubernetes().withEnvironment(env(Map.of(
        "KUBECONFIG", dir.resolve("missing") + File.pathSeparator + first + File.pathSeparator
            + second)));
    assertThat(viaVariable.activeContext()).contains("from-second");

    Path home = dir.resolve("home/.kube/config");
    Files.createDirectories(home.getParent());
    Files.copy(first, home);
    assertThat(Clusters.kubernetes().withEnvironment(env(Map.of())).context("first-ctx").server())
        .isEqualTo(SERVER);
  }

  @Test
  void inClusterUsesTheServiceAccount() throws Exception {
    Path sa = dir.resolve("sa");
    Files.createDirectories(sa);
    Files.writeString(sa.resolve("token"), "in-cluster-token-abcdef123456");
    Files.writeString(sa.resolve("namespace"), "kubeflow-user\n");
    KubernetesCluster cluster = Clusters.kubernetes().withEnvironment(new KubeEnvironment(
        Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443"),
        dir.resolve("home"), sa));

    assertThat(cluster.server()).isEqualTo("https://10.96.0.1:443");
    assertThat(cluster.defaultNamespace()).isEqualTo("kubeflow-user");
    assertThat(cluster.activeContext()).isEmpty();
  }

  @Test
  void noConfigurationAtAllSaysWhereItLooked() {
    assertThatThrownBy(() -> Clusters.kubernetes().withEnvironment(env(Map.of())).server())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("KUBECONFIG is unset")
        .hasMessageContaining(dir.resolve("home/.kube/config").toString());
    assertThatThrownBy(() -> Clusters.kubernetes()
        .withEnvironment(env(Map.of("KUBECONFIG", "/nowhere/config"))).server())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("KUBECONFIG");
          assertThat(e.getMessage()).contains("/nowhere/config");
        });
  }

  /**
   * A dry run of a job with its own namespace needs nothing from the kubeconfig: it failed when
   * KUBECONFIG named a missing file, though it rendered with KUBECONFIG unset. Without a
   * namespace the kubeconfig decides it, so the broken configuration is still reported.
   */
  @Test
  void aDryRunWithAnExplicitNamespaceRendersWhateverKubeconfigNames() {
    KubernetesCluster broken = Clusters.kubernetes()
        .withEnvironment(env(Map.of("KUBECONFIG", "/nowhere/config")));
    BuildContext context = BuildContext.empty().withCommand(java.util.List.of("python", "t.py"));

    var explicit = Deployers.pyTorchJob("dry").namespace("kubeflow").on(broken).asDeployer();
    explicit.validate(context);
    assertThat(explicit.render(context, java.util.Optional.of(dev.fairing4j.core.ImageRef.parse(
        "registry.example.com/team/dry@sha256:" + "a".repeat(64)))))
        .contains("namespace: kubeflow");

    var fromKubeconfig = Deployers.pyTorchJob("dry").on(broken).asDeployer();
    assertThatThrownBy(() -> fromKubeconfig.validate(context))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("KUBECONFIG"));
  }

  @Test
  void aContextWithoutItsClusterOrWithoutCurrentContextIsExplained() throws Exception {
    Path orphan = dir.resolve("orphan");
    Files.writeString(orphan, """
        contexts:
        - name: lonely
          context:
            cluster: gone
        current-context: lonely
        """);
    assertThatThrownBy(() -> Clusters.kubernetes().kubeconfig(orphan).server())
        .hasMessageContaining("context 'lonely' refers to cluster 'gone', which is not defined");

    Path noCurrent = dir.resolve("no-current");
    Files.writeString(noCurrent, "contexts:\n- name: one\n  context:\n    cluster: c\n");
    assertThatThrownBy(() -> Clusters.kubernetes().kubeconfig(noCurrent).server())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.getMessage()).contains("no current-context set")
              .contains("available contexts: one");
          assertThat(e.fix()).contains(".context(\"name\")");
        });
  }

  @Test
  void relativeFileReferencesResolveAgainstTheFileThatMakesThem() {
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(second, first)
        .context("from-second");
    // The cluster now comes from file 2, whose CA path is relative to file 2's directory: the
    // client fails to read it there, and the error names that resolved path.
    assertThatThrownBy(() -> cluster.submit(TestJobs.pyTorchJob("mnist", "team"),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.getMessage()).contains("cannot use the credentials of context"
              + " 'from-second'").contains(dir.resolve("b/certs/ca.crt").toString())
              .doesNotContain(SECOND_TOKEN);
        });
  }

  @Test
  void toStringAndDescribeShowChoicesButNeverCredentials() {
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(first, second)
        .context("from-second").namespace("team");
    cluster.server(); // loaded: still nothing secret in the text

    assertThat(cluster.describe()).isEqualTo("kubernetes(context=from-second, namespace=team,"
        + " kubeconfig=" + first + File.pathSeparator + second + ")");
    assertThat(cluster.toString()).isEqualTo(cluster.describe())
        .doesNotContain(FIRST_TOKEN).doesNotContain(SECOND_TOKEN);
    assertThat(Clusters.kubernetes().describe()).isEqualTo("kubernetes(current context)");
    assertThat(cluster).isEqualTo(Clusters.kubernetes().kubeconfig(first, second)
        .context("from-second").namespace("team"));
  }

  @Test
  void fluentChoicesAreValidated() {
    assertThatThrownBy(() -> Clusters.kubernetes().namespace("Team_A"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("namespace");
    assertThatThrownBy(() -> Clusters.kubernetes().context(" "))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> Clusters.kubernetes().kubeconfig(new Path[0]))
        .isInstanceOf(InvalidInputException.class);
    assertThat(Clusters.kubernetes().kubeconfig(first).kubeconfigFiles()).containsExactly(first);
  }

}

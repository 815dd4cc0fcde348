package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeEnvironment;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.monitor.TensorBoard;
import dev.fairing4j.deployer.storage.Ensured;
import dev.fairing4j.deployer.storage.VolumeClaim;
import dev.fairing4j.deployer.storage.Volumes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/rbac.yaml applied for real: its namespace replaced as its header says, its ServiceAccount
 * given a token through the TokenRequest API, and the SDK run as that service account the way a
 * pod runs it (in-cluster configuration: the token, CA and namespace files of the service
 * account mount). Every request of a full run (storage, pull secret, batch Job, PyTorchJob with
 * a wait, TensorBoard, the TrainingClient views, deletions) must be allowed by the server's real
 * RBAC, and what the document does not grant must be denied.
 */
class RbacDocumentIT {
  private static final String SERVICE_ACCOUNT = "fairing4j";

  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  @TempDir Path dir;
  private final RealApiObjects api = new RealApiObjects(K8S);

  @Test
  void everyRequestOfAFullRunIsAllowedAndWhatIsNotGrantedIsDenied() throws Exception {
    String ns = api.ns();
    String token = applyDocumentAndRequestToken(ns);
    KubernetesCluster cluster = inClusterAs(token, ns);
    String user = "system:serviceaccount:" + ns + ":" + SERVICE_ACCOUNT;
    AuditLog.Mark mark = api.server().audit().mark();

    // Storage: a volume and a claim of an expandable class, bound, then grown.
    String storageClass = ns + "-expandable";
    api.post("/apis/storage.k8s.io/v1/storageclasses", Map.of("apiVersion",
        "storage.k8s.io/v1", "kind", "StorageClass", "metadata", Map.of("name", storageClass),
        "provisioner", "example.com/none", "allowVolumeExpansion", true));
    VolumeClaim claim = Volumes.claim("models", "1Gi", Map.of("app", ns), storageClass);
    Volumes.on(cluster).ensure(Volumes.hostPathPersistentVolume(ns + "-models", "/mnt/models",
        "1Gi", List.of("ReadWriteOnce"), Map.of("app", ns)).withStorageClass(storageClass), claim);
    RealApiObjects.await("claim Bound", () -> JsonTree.string(api.get(
        api.core("persistentvolumeclaims") + "/models"), "status", "phase").orElse("")
        .equals("Bound"));
    assertThat(Volumes.on(cluster).ensure(claim.withSize("2Gi")))
        .extracting(Ensured::action).containsExactly(Ensured.Action.EXPANDED);

    // A distributed batch Job with its Service and pull Secret, read and deleted.
    TrainingJob batch = Deployers.batchJob("mnist").replicas(2)
        .mutate(Mutators.pvc("models", "/models"))
        .pullCredentials(new RegistryCredentials("registry.example.com", "alice",
            Secret.of("password")))
        .on(cluster).asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
            ProgressListener.NONE);
    batch.status();
    batch.delete();

    // A PyTorchJob with a TensorBoard, followed to success, seen through the TrainingClient.
    TrainingJob torch = Deployers.pyTorchJob("torch").workers(1).on(cluster)
        .asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
            ProgressListener.NONE);
    TensorBoard.forJob(torch).logDir("models", "runs/torch").start();
    api.mergePatch(api.jobs() + "/torch/status", RealApiObjects.succeededStatus("torch"));
    assertThat(torch.waitForCompletion(Duration.ofSeconds(60)).phase()).hasToString("Succeeded");
    TrainingClient client = TrainingClient.connect(cluster);
    assertThat(client.list().toString()).contains("torch");
    client.get("torch");
    client.topJobs();
    client.topNodes();
    torch.delete();

    List<AuditLog.Request> requests = api.server().audit().since(mark).stream()
        .filter(r -> r.user().equals(user)).toList();
    assertThat(requests).isNotEmpty().allSatisfy(r -> assertThat(r.status())
        .as("%s -> %s", r.line(), r.status()).isNotIn(401, 403));
    Set<String> resources = requests.stream().map(r -> resource(r.path()))
        .collect(Collectors.toSet());
    assertThat(resources).contains("persistentvolumes", "persistentvolumeclaims", "secrets",
        "services", "jobs", "pytorchjobs", "pods", "events", "deployments", "nodes");
    assertThat(requests).extracting(AuditLog.Request::verb)
        .contains("get", "list", "watch", "create", "patch", "delete");

    // Outside the document: another namespace, listing Secrets, ConfigMaps, deleting volumes.
    String other = api.server().createNamespace("rbac-other");
    assertThatThrownBy(() -> Deployers.pyTorchJob("mnist").namespace(other).on(cluster)
        .asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
            ProgressListener.NONE))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
          // A job alone is created straight away (its 409 would tell a taken name).
          assertThat(e.getMessage()).contains("RBAC denies verb 'create'")
              .contains("User \"" + user + "\" cannot create resource \"pytorchjobs\"");
          assertThat(e.hint().orElseThrow()).contains("a Role in namespace " + other);
        });
    assertThat(api.statusAs(token, "GET", api.core("secrets"))).isEqualTo(403);
    assertThat(api.statusAs(token, "GET", api.core("configmaps") + "/anything"))
        .isEqualTo(403);
    assertThat(api.statusAs(token, "DELETE", "/api/v1/persistentvolumes/" + ns + "-models"))
        .isEqualTo(403);
    assertThat(api.statusAs(token, "GET", "/apis/kubeflow.org/v1/namespaces/" + other
        + "/pytorchjobs")).isEqualTo(403);
  }

  /**
   * Applies docs/rbac.yaml as a user would (its namespace replaced where the header says), with
   * the cluster-wide objects renamed after the test namespace so tests stay apart; the token
   * of its ServiceAccount, once RBAC lets it list the namespace's jobs.
   */
  private String applyDocumentAndRequestToken(String ns) throws Exception {
    String text = Files.readString(RbacDocumentTest.RBAC);
    Matcher places = Pattern.compile("Replace the namespace \"kubeflow\" \\((\\d+) places\\)")
        .matcher(text);
    assertThat(places.find()).as("the header says where to replace the namespace").isTrue();
    Matcher namespaces = Pattern.compile("namespace: kubeflow\\n").matcher(text);
    assertThat(namespaces.results().count()).as("places of 'namespace: kubeflow'")
        .isEqualTo(Long.parseLong(places.group(1)));
    for (Map<String, Object> doc : Fixtures.parse(text.replace("namespace: kubeflow\n",
        "namespace: " + ns + "\n"))) {
      String kind = String.valueOf(doc.get("kind"));
      if (kind.startsWith("Cluster")) {
        RealApiObjects.metadata(doc).put("name", SERVICE_ACCOUNT + "-" + ns);
        if (kind.equals("ClusterRoleBinding")) {
          JsonTree.map(doc, "roleRef").put("name", SERVICE_ACCOUNT + "-" + ns);
        }
      }
      ResourceRef resource = ResourceRef.of(String.valueOf(doc.get("apiVersion")), kind);
      api.post(resource.collectionPath(Optional.of(ns)), doc);
    }
    Map<String, Object> tokenRequest = api.post("/api/v1/namespaces/" + ns + "/serviceaccounts/"
        + SERVICE_ACCOUNT + "/token", Map.of("apiVersion", "authentication.k8s.io/v1",
            "kind", "TokenRequest", "spec", Map.of("expirationSeconds", 3600)));
    String token = JsonTree.string(tokenRequest, "status", "token").orElseThrow();
    RealApiObjects.await("RBAC lets the service account list jobs",
        () -> api.statusAs(token, "GET", api.jobs()) == 200
            && api.statusAs(token, "GET", "/api/v1/persistentvolumes/none") == 404);
    return token;
  }

  /** The cluster as a pod of the service account sees it: its mounted token, CA and namespace. */
  private KubernetesCluster inClusterAs(String token, String ns) throws Exception {
    Path mount = Files.createDirectories(dir.resolve("serviceaccount"));
    Files.writeString(mount.resolve("token"), token);
    Files.writeString(mount.resolve("ca.crt"), api.server().caPem());
    Files.writeString(mount.resolve("namespace"), ns);
    String port = api.server().url().substring(api.server().url().lastIndexOf(':') + 1);
    KubernetesCluster cluster = Clusters.kubernetes().withEnvironment(new KubeEnvironment(
        Map.of("KUBERNETES_SERVICE_HOST", "127.0.0.1", "KUBERNETES_SERVICE_PORT", port),
        Files.createDirectories(dir.resolve("home")), mount))
        .withTimings(RealApiObjects.TIMINGS);
    assertThat(cluster.activeContext()).isEmpty();
    assertThat(cluster.defaultNamespace()).isEqualTo(ns);
    return cluster;
  }

  /** The resource of a request path: {@code /api/v1/namespaces/ns/pods/x/log} gives pods. */
  private static String resource(String path) {
    Matcher matcher = Pattern.compile("^/(?:api/v1|apis/[^/]+/[^/]+)(?:/namespaces/[^/]+)?"
        + "/([a-z]+)").matcher(path);
    return matcher.find() ? matcher.group(1) : path;
  }
}

package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Submission against a real API server (etcd + kube-apiserver with the real Kubeflow CRDs, RBAC
 * and the garbage collector), reached through a kubeconfig file: what is stored, which requests
 * are sent, and how each refusal of the server (name taken, RBAC denial, namespace or CRD
 * missing, invalid object) is reported.
 *
 * <p>Two cases stay on the CRUD mock in {@link KubernetesSubmitFaultsTest}: a job created by
 * someone else between the SDK's name check and its create (a race a real server cannot be made
 * to lose on demand), and a 404 without a body (as some proxies send; a real server always says
 * what is missing).
 */
class KubernetesSubmitIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  @TempDir Path dir;
  private final RealApiObjects api = new RealApiObjects(K8S);

  private TrainingJob submit(RenderedJob job, SubmitOptions options) {
    return api.cluster().submit(job, BuildContext.empty(), options, ProgressListener.NONE);
  }

  @Test
  void createsTheServiceAndTheJobAsRendered() {
    String ns = api.ns();
    List<ProgressEvent> events = new ArrayList<>();
    TrainingJob job = api.cluster().submit(TestJobs.pyTorchJob("mnist", ns),
        BuildContext.empty(), SubmitOptions.DEFAULT, events::add);

    assertThat(job.name()).isEqualTo("mnist");
    assertThat(job.namespace()).isEqualTo(ns);
    assertThat(job.kind()).isEqualTo("PyTorchJob");
    assertThat(job).isInstanceOf(KubernetesTrainingJob.class);
    assertThat(job.toString()).isEqualTo("PyTorchJob " + ns + "/mnist");

    Map<String, Object> stored = api.get(api.jobs() + "/mnist");
    assertThat(JsonTree.string(stored, "metadata", "namespace")).contains(ns);
    assertThat(JsonTree.string(stored, "metadata", "labels", "app.kubernetes.io/managed-by"))
        .contains("fairing4j");
    // Stored as sent; the server adds only the CRD schema's defaults.
    assertThat(RealApiObjects.addedByServer(TestJobs.pyTorchObject("mnist").get("spec"),
        stored.get("spec"))).containsExactlyInAnyOrder(
            ".pytorchReplicaSpecs.Master.template.spec.containers[0].ports[0].protocol=TCP",
            ".pytorchReplicaSpecs.Worker.template.spec.containers[0].ports[0].protocol=TCP",
            ".runPolicy.suspend=false");
    assertThat(JsonTree.string(stored, "spec", "pytorchReplicaSpecs", "Master", "replicas"))
        .contains("1");

    Map<String, Object> service = api.get(api.services() + "/mnist-headless");
    assertThat(JsonTree.string(service, "spec", "clusterIP")).contains("None");
    // Owned by the job, so deleting the job cascades to it.
    List<Map<String, Object>> owners = JsonTree.maps(service, "metadata", "ownerReferences");
    assertThat(owners).hasSize(1);
    assertThat(owners.get(0)).containsEntry("kind", "PyTorchJob")
        .containsEntry("apiVersion", "kubeflow.org/v1").containsEntry("name", "mnist")
        .containsEntry("uid", JsonTree.string(stored, "metadata", "uid").orElseThrow());

    assertThat(events).first().isEqualTo(new ProgressEvent.StepStarted("submit PyTorchJob mnist"));
    assertThat(events).last().isInstanceOf(ProgressEvent.StepFinished.class);
  }

  @Test
  void requestsCarryTheKubeconfigsCredentials() {
    String ns = api.ns();
    submit(TestJobs.pyTorchJob("mnist", ns), SubmitOptions.DEFAULT);

    // The server authenticated every request as the kubeconfig's token user; only the name
    // check found nothing.
    assertThat(K8S.requests()).extracting(AuditLog.Request::user)
        .containsOnly(User.SDK.username());
    assertThat(K8S.requests()).extracting(AuditLog.Request::status)
        .containsExactly(404, 201, 201, 200);
    assertThat(K8S.requestLines()).containsExactly(
        "get " + api.jobs() + "/mnist",
        "create " + api.services(),
        "create " + api.jobs(),
        "patch " + api.services() + "/mnist-headless");
  }

  @Test
  void existingStorageIsKeptAndNotOwnedByTheJob() {
    String ns = api.ns();
    String claims = api.core("persistentvolumeclaims");
    api.post(claims, Map.of("apiVersion", "v1", "kind", "PersistentVolumeClaim",
        "metadata", Map.of("name", "models", "labels", Map.of("kept", "yes")),
        "spec", Map.of("accessModes", List.of("ReadWriteOnce"), "storageClassName", "",
            "resources", Map.of("requests", Map.of("storage", "1Gi")))));
    Map<String, Object> claim = Map.of("apiVersion", "v1", "kind", "PersistentVolumeClaim",
        "metadata", Map.of("name", "models"),
        "spec", Map.of("accessModes", List.of("ReadWriteOnce"), "storageClassName", "",
            "resources", Map.of("requests", Map.of("storage", "1Gi"))));
    RenderedJob job = new RenderedJob("PyTorchJob", "mnist", ns, List.of(claim,
        TestJobs.headlessService("mnist-headless", "mnist"), TestJobs.pyTorchObject("mnist")));

    submit(job, SubmitOptions.DEFAULT);

    Map<String, Object> stored = api.get(claims + "/models");
    assertThat(JsonTree.string(stored, "metadata", "labels", "kept")).contains("yes");
    assertThat(JsonTree.maps(stored, "metadata", "ownerReferences")).isEmpty();
    assertThat(JsonTree.maps(api.get(api.services() + "/mnist-headless"), "metadata",
        "ownerReferences")).hasSize(1);
    // The existing claim was met by a 409 and left alone: no patch, no delete.
    assertThat(K8S.requestLines()).contains("create " + claims)
        .noneMatch(line -> line.startsWith("patch " + claims) || line.startsWith("delete "));
  }

  @Test
  void aLeftOverDependencyIsNamedAndReplacedOnlyWhenAsked() {
    String ns = api.ns();
    api.post(api.services(), TestJobs.headlessService("mnist-headless", "old"));
    String oldUid = api.uid(api.services() + "/mnist-headless");

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", ns), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.ALREADY_EXISTS);
          assertThat(e.getMessage()).contains("Service mnist-headless in namespace " + ns
              + " already exists");
          assertThat(e.hint().orElseThrow()).contains(".replaceExisting()")
              .contains("kubectl delete service mnist-headless -n " + ns);
        });
    assertThat(api.get(api.jobs() + "/mnist")).isEmpty();
    assertThat(api.uid(api.services() + "/mnist-headless")).isEqualTo(oldUid);

    submit(TestJobs.pyTorchJob("mnist", ns), new SubmitOptions(true));
    Map<String, Object> service = api.get(api.services() + "/mnist-headless");
    assertThat(JsonTree.string(service, "spec", "selector", "training.kubeflow.org/job-name"))
        .contains("mnist");
    assertThat(api.uid(api.services() + "/mnist-headless")).isNotEqualTo(oldUid);
  }

  @Test
  void aMissingOperatorIsFoundBeforeAnythingIsCreatedAndSaysInstallIt() {
    // A server of its own: deleting a CRD from the shared one would break other tests.
    try (KubeApiServer server = KubeApiServer.start()) {
      String ns = server.createNamespace("no-operator");
      String crd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
          + "pytorchjobs.kubeflow.org";
      server.request("DELETE", crd, null);
      String jobs = "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs";
      RealApiObjects.await("pytorchjobs no longer served",
          () -> server.send("GET", crd, null).status() == 404
              && server.send("GET", jobs, null).status() == 404);
      AuditLog.Mark mark = server.audit().mark();
      KubernetesCluster cluster = RealApiObjects.cluster(server.kubeconfig(User.SDK, ns));

      assertThatThrownBy(() -> cluster.submit(TestJobs.pyTorchJob("mnist", ns),
          BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE))
          .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED);
            assertThat(e.httpStatus()).contains(404);
            assertThat(e.getMessage()).contains("does not serve pytorchjobs.kubeflow.org")
                .contains("Kubeflow training operator");
            assertThat(e.hint().orElseThrow())
                .startsWith("install the Kubeflow training operator: kubectl apply"
                    + " --server-side -k")
                .contains("kubectl get crd pytorchjobs.kubeflow.org");
          });
      assertThat(server.audit().since(mark, User.SDK)).extracting(AuditLog.Request::line)
          .containsExactly("get " + jobs + "/mnist");
      assertThat(server.send("GET", "/api/v1/namespaces/" + ns + "/services/mnist-headless",
          null).status()).isEqualTo(404);
    }
  }

  @Test
  void aTakenNameFailsBeforeAnythingIsCreatedAndNamesTheWayOut() {
    String ns = api.ns();
    submit(TestJobs.pyTorchJob("mnist", ns), SubmitOptions.DEFAULT);
    api.mergePatch(api.services() + "/mnist-headless",
        Map.of("metadata", Map.of("labels", Map.of("run", "1"))));
    AuditLog.Mark mark = api.server().audit().mark();

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", ns), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.ALREADY_EXISTS);
          assertThat(e.httpStatus()).contains(409);
          assertThat(e.getMessage()).contains("PyTorchJob mnist in namespace " + ns
              + " already exists");
          assertThat(e.hint().orElseThrow()).contains(".replaceExisting()")
              .contains(".uniqueName()").contains("kubectl delete pytorchjob mnist -n " + ns);
          assertThat(e.getMessage()).doesNotContain(api.server().token(User.SDK));
        });
    assertThat(api.linesOf(mark, User.SDK.username()))
        .containsExactly("get " + api.jobs() + "/mnist");
    // The first run's Service is untouched.
    assertThat(JsonTree.string(api.get(api.services() + "/mnist-headless"), "metadata",
        "labels", "run")).contains("1");
  }

  @Test
  void replaceExistingDeletesTheOldJobAndItsServiceFirst() {
    String ns = api.ns();
    submit(TestJobs.pyTorchJob("mnist", ns), SubmitOptions.DEFAULT);
    String oldUid = api.uid(api.jobs() + "/mnist");
    api.mergePatch(api.jobs() + "/mnist/status", Map.of("status", Map.of("conditions",
        List.of(RealApiObjects.condition("Failed", "True", "PyTorchJobFailed", "")))));

    TrainingJob job = submit(TestJobs.pyTorchJob("mnist", ns), new SubmitOptions(true));

    Map<String, Object> stored = api.get(api.jobs() + "/mnist");
    String newUid = JsonTree.string(stored, "metadata", "uid").orElseThrow();
    assertThat(newUid).isNotEqualTo(oldUid);
    assertThat(stored).doesNotContainKey("status");
    assertThat(job.status().phase()).hasToString("Pending");
    // The Service is the new job's: its owner is the new uid.
    assertThat(JsonTree.maps(api.get(api.services() + "/mnist-headless"), "metadata",
        "ownerReferences")).singleElement().satisfies(o -> assertThat(o)
            .containsEntry("uid", newUid));
    // The old job was deleted with Foreground propagation and awaited before the new create.
    List<String> lines = K8S.requestLines();
    int delete = lines.indexOf("delete " + api.jobs() + "/mnist");
    assertThat(delete).isNotNegative();
    assertThat(lines.lastIndexOf("create " + api.jobs())).isGreaterThan(delete);
  }

  @Test
  void anRbacDenialNamesVerbResourceNamespaceAndTheRule() {
    String ns = api.ns();
    // May check the name and bring the Service along, but not create the job itself.
    api.grant("submit-without-create", User.UNPRIVILEGED, List.of(
        RealApiObjects.rule("kubeflow.org", List.of("pytorchjobs"), List.of("get")),
        RealApiObjects.rule("", List.of("services"),
            List.of("get", "create", "patch", "delete"))),
        api.jobs() + "/probe");
    KubernetesCluster cluster = RealApiObjects.cluster(K8S.kubeconfig(User.UNPRIVILEGED));
    String token = api.server().token(User.UNPRIVILEGED);

    assertThatThrownBy(() -> cluster.submit(TestJobs.pyTorchJob("mnist", ns),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
          assertThat(e.httpStatus()).contains(403);
          assertThat(e.getMessage()).startsWith("create PyTorchJob [" + ns + "/mnist] failed: ");
          assertThat(e.getMessage()).contains("RBAC denies verb 'create'")
              .contains("resource 'pytorchjobs.kubeflow.org'").contains("in namespace " + ns)
              .contains("User \"" + User.UNPRIVILEGED.username() + "\" cannot create resource"
                  + " \"pytorchjobs\" in API group \"kubeflow.org\" in the namespace \"" + ns
                  + "\"");
          assertThat(e.hint().orElseThrow()).contains("a Role in namespace " + ns)
              .contains("- apiGroups: [\"kubeflow.org\"]")
              .contains("resources: [\"pytorchjobs\"]").contains("verbs: [\"create\"]")
              .contains("kubectl auth can-i create pytorchjobs.kubeflow.org -n " + ns);
          assertThat(e.getMessage()).doesNotContain(token);
        });
    // The Service created before the job was rolled back.
    assertThat(api.get(api.services() + "/mnist-headless")).isEmpty();
  }

  @Test
  void aUserWithoutAnyGrantIsStoppedByTheFirstRequest() {
    String ns = api.ns();
    AuditLog.Mark mark = api.server().audit().mark();
    KubernetesCluster cluster = RealApiObjects.cluster(K8S.kubeconfig(User.UNPRIVILEGED));

    assertThatThrownBy(() -> cluster.submit(TestJobs.pyTorchJob("mnist", ns),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
          assertThat(e.getMessage()).contains("RBAC denies verb 'get'")
              .contains("resource 'pytorchjobs.kubeflow.org' in namespace " + ns);
          assertThat(e.hint().orElseThrow()).contains("verbs: [\"get\"]");
        });
    assertThat(api.linesOf(mark, User.UNPRIVILEGED.username()))
        .containsExactly("get " + api.jobs() + "/mnist");
  }

  @Test
  void aQuotaRefusalIsNotMistakenForAnRbacDenial() {
    String ns = api.ns();
    // No Services in this namespace. The quota controller does not run here: its status is set
    // as that controller would, which is what admission reads.
    String quotas = api.core("resourcequotas");
    api.post(quotas, Map.of("apiVersion", "v1", "kind", "ResourceQuota",
        "metadata", Map.of("name", "no-services"),
        "spec", Map.of("hard", Map.of("services", "0"))));
    api.mergePatch(quotas + "/no-services/status", Map.of("status", Map.of(
        "hard", Map.of("services", "0"), "used", Map.of("services", "0"))));

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", ns), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
          assertThat(e.httpStatus()).contains(403);
          assertThat(e.getMessage()).startsWith("create Service [" + ns + "/mnist-headless]")
              .contains("not an RBAC denial").contains("exceeded quota: no-services")
              .doesNotContain("RBAC denies");
          assertThat(e.hint().orElseThrow()).contains("admission check")
              .doesNotContain("Role").doesNotContain("kubectl auth can-i");
        });
    assertThat(api.get(api.jobs() + "/mnist")).isEmpty();
  }

  @Test
  void aMissingNamespaceSaysCreateIt() {
    String missing = api.ns() + "-missing";

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", missing),
        SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.NAMESPACE_NOT_FOUND);
          assertThat(e.httpStatus()).contains(404);
          assertThat(e.getMessage()).contains("namespace '" + missing + "' does not exist");
          assertThat(e.hint().orElseThrow()).contains("kubectl create namespace " + missing);
        });
    // The name check found nothing (a missing namespace holds no job); the first create failed.
    assertThat(K8S.requestLines()).containsExactly(
        "get /apis/kubeflow.org/v1/namespaces/" + missing + "/pytorchjobs/mnist",
        "create /api/v1/namespaces/" + missing + "/services");
  }

  @Test
  void anInvalidObjectQuotesTheServerButNeverSecretValues() {
    String ns = api.ns();
    // Not JSON: kube-apiserver validates a dockerconfigjson Secret's content.
    Map<String, Object> secret = Map.of("apiVersion", "v1", "kind", "Secret",
        "metadata", Map.of("name", "mnist-pull"), "type", "kubernetes.io/dockerconfigjson",
        "stringData", Map.of(".dockerconfigjson", "{\"auths\":{\"r\":{\"auth\":\"c2VjcmV0\"}}"));
    RenderedJob job = new RenderedJob("PyTorchJob", "mnist", ns,
        List.of(secret, TestJobs.pyTorchObject("mnist")));

    assertThatThrownBy(() -> submit(job, SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.INVALID);
          assertThat(e.httpStatus()).contains(422);
          assertThat(e.getMessage()).contains("Secret \"mnist-pull\" is invalid")
              .contains("data[.dockerconfigjson]: Invalid value: ****")
              .doesNotContain("c2VjcmV0");
        });
    assertThat(api.get(api.jobs() + "/mnist")).isEmpty();
    assertThat(api.get(api.core("secrets") + "/mnist-pull")).isEmpty();
  }

  @Test
  void malformedObjectsFailBeforeAnyRequest() {
    String ns = api.ns();
    Map<String, Object> wrongNamespace = Map.of("apiVersion", "v1", "kind", "Service",
        "metadata", Map.of("name", "svc", "namespace", "other"));
    RenderedJob job = new RenderedJob("PyTorchJob", "mnist", ns,
        List.of(wrongNamespace, TestJobs.pyTorchObject("mnist")));

    assertThatThrownBy(() -> submit(job, SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("namespace");
          assertThat(e.getMessage()).contains("Service svc declares namespace 'other'");
        });
    RenderedJob trainingNotLast = new RenderedJob("PyTorchJob", "mnist", ns,
        List.of(TestJobs.pyTorchObject("mnist"), TestJobs.headlessService("svc", "mnist")));
    assertThatThrownBy(() -> submit(trainingNotLast, SubmitOptions.DEFAULT))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("render the training object last");
    assertThat(K8S.requests()).isEmpty();
  }

  @Test
  void anUnreachableServerSaysSoWithoutCredentials() throws Exception {
    // Port 1 on loopback: nothing listens there.
    Path config = dir.resolve("closed");
    Files.writeString(config, Files.readString(K8S.kubeconfig())
        .replace(api.server().url(), "https://127.0.0.1:1"));
    KubernetesCluster closed = RealApiObjects.cluster(config);

    assertThatThrownBy(() -> closed.submit(TestJobs.pyTorchJob("mnist", api.ns()),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.UNREACHABLE);
          assertThat(e.getMessage()).contains("cannot reach the API server at"
              + " https://127.0.0.1:1");
          assertThat(e.hint().orElseThrow()).contains("context 'fairing4j-test'")
              .contains("kubectl cluster-info");
          assertThat(e.getMessage()).doesNotContain(api.server().token(User.SDK));
        });
  }
}

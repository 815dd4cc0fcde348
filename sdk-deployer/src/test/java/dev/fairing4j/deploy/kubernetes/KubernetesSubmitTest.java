package dev.fairing4j.deploy.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.internal.RenderedJob;
import dev.fairing4j.deploy.internal.SubmitOptions;
import dev.fairing4j.deploy.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deploy.kubernetes.internal.JsonTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Submission against the fabric8 CRUD mock, reached through a kubeconfig file. */
class KubernetesSubmitTest {
  private static final String NS = "team";
  private static final String JOBS = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs";
  private static final String SERVICES = "/api/v1/namespaces/" + NS + "/services";

  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  @TempDir Path dir;
  private final MockObjects mock = new MockObjects(K8S);
  private KubernetesCluster cluster;

  @BeforeEach
  void start() {
    cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(TestJobs.FAST);
  }

  private TrainingJob submit(RenderedJob job, SubmitOptions options) {
    return cluster.submit(job, BuildContext.empty(), options, ProgressListener.NONE);
  }

  @Test
  void createsTheServiceAndTheJobAsRendered() {
    List<ProgressEvent> events = new ArrayList<>();
    TrainingJob job = cluster.submit(TestJobs.pyTorchJob("mnist", NS), BuildContext.empty(),
        SubmitOptions.DEFAULT, events::add);

    assertThat(job.name()).isEqualTo("mnist");
    assertThat(job.namespace()).isEqualTo(NS);
    assertThat(job.kind()).isEqualTo("PyTorchJob");
    assertThat(job).isInstanceOf(KubernetesTrainingJob.class);
    assertThat(job.toString()).isEqualTo("PyTorchJob team/mnist");

    Map<String, Object> stored = mock.get(JOBS + "/mnist");
    assertThat(JsonTree.string(stored, "metadata", "namespace")).contains(NS);
    assertThat(JsonTree.string(stored, "metadata", "labels", "app.kubernetes.io/managed-by"))
        .contains("fairing4j");
    assertThat(stored.get("spec")).isEqualTo(JsonTree.parseObject(
        JsonTree.toJson(TestJobs.pyTorchObject("mnist").get("spec"))));
    assertThat(JsonTree.string(stored, "spec", "pytorchReplicaSpecs", "Master", "replicas"))
        .contains("1");

    Map<String, Object> service = mock.get(SERVICES + "/mnist-headless");
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
    submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT);

    assertThat(K8S.requests()).isNotEmpty().allSatisfy(r -> assertThat(r.getHeader(
        "Authorization")).isEqualTo("Bearer " + KubernetesApiFixture.TOKEN));
    assertThat(K8S.requestLines()).containsExactly("GET " + JOBS + "/mnist", "POST " + SERVICES,
        "POST " + JOBS, "PATCH " + SERVICES + "/mnist-headless");
  }

  @Test
  void existingStorageIsKeptAndNotOwnedByTheJob() {
    String claims = "/api/v1/namespaces/" + NS + "/persistentvolumeclaims";
    mock.post(claims, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\","
        + "\"metadata\":{\"name\":\"models\",\"labels\":{\"kept\":\"yes\"}},"
        + "\"spec\":{\"accessModes\":[\"ReadWriteOnce\"]}}");
    Map<String, Object> claim = Map.of("apiVersion", "v1", "kind", "PersistentVolumeClaim",
        "metadata", Map.of("name", "models"),
        "spec", Map.of("accessModes", List.of("ReadWriteOnce")));
    RenderedJob job = new RenderedJob("PyTorchJob", "mnist", NS, List.of(claim,
        TestJobs.headlessService("mnist-headless", "mnist"), TestJobs.pyTorchObject("mnist")));

    submit(job, SubmitOptions.DEFAULT);

    Map<String, Object> stored = mock.get(claims + "/models");
    assertThat(JsonTree.string(stored, "metadata", "labels", "kept")).contains("yes");
    assertThat(JsonTree.maps(stored, "metadata", "ownerReferences")).isEmpty();
    assertThat(JsonTree.maps(mock.get(SERVICES + "/mnist-headless"), "metadata",
        "ownerReferences")).hasSize(1);
  }

  @Test
  void aLeftOverDependencyIsNamedAndReplacedOnlyWhenAsked() {
    mock.post(SERVICES, JsonTree.toJson(TestJobs.headlessService("mnist-headless", "old")));

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.ALREADY_EXISTS);
          assertThat(e.getMessage()).contains("Service mnist-headless in namespace team already"
              + " exists");
          assertThat(e.hint().orElseThrow()).contains(".replaceExisting()")
              .contains("kubectl delete service mnist-headless -n team");
        });
    assertThat(mock.get(JOBS + "/mnist")).isEmpty();

    submit(TestJobs.pyTorchJob("mnist", NS), new SubmitOptions(true));
    assertThat(JsonTree.string(mock.get(SERVICES + "/mnist-headless"), "spec", "selector",
        "training.kubeflow.org/job-name")).contains("mnist");
  }

  @Test
  void aMissingOperatorIsFoundBeforeAnythingIsCreated() {
    // A real API server answers a read of an unserved resource like this (details without name).
    K8S.server().expect().get().withPath(JOBS + "/mnist")
        .andReturn(404, TestJobs.status(404, "NotFound",
            "the server could not find the requested resource", "{}"))
        .always();

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e ->
            assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED));
    assertThat(K8S.requestLines()).containsExactly("GET " + JOBS + "/mnist");
  }

  @Test
  void aTakenNameFailsBeforeAnythingIsCreatedAndNamesTheWayOut() {
    submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT);
    mock.mergePatch(SERVICES + "/mnist-headless", "{\"metadata\":{\"labels\":{\"run\":\"1\"}}}");

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.ALREADY_EXISTS);
          assertThat(e.httpStatus()).contains(409);
          assertThat(e.getMessage()).contains("PyTorchJob mnist in namespace team already exists");
          assertThat(e.hint().orElseThrow()).contains(".replaceExisting()")
              .contains(".uniqueName()").contains("kubectl delete pytorchjob mnist -n team");
          assertThat(e.getMessage()).doesNotContain(KubernetesApiFixture.TOKEN);
        });
    // The first run's Service is untouched.
    assertThat(JsonTree.string(mock.get(SERVICES + "/mnist-headless"), "metadata", "labels",
        "run")).contains("1");
  }

  @Test
  void aConflictOnCreateRollsBackTheDependenciesOfThisSubmission() {
    K8S.server().expect().post().withPath(JOBS)
        .andReturn(409, TestJobs.status(409, "AlreadyExists",
            "pytorchjobs.kubeflow.org \"mnist\" already exists",
            "{\"name\":\"mnist\",\"group\":\"kubeflow.org\",\"kind\":\"pytorchjobs\"}"))
        .once();

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.ALREADY_EXISTS);
          assertThat(e.hint().orElseThrow()).contains(".replaceExisting()");
        });
    assertThat(mock.get(SERVICES + "/mnist-headless")).isEmpty();
  }

  @Test
  void replaceExistingDeletesTheOldJobAndItsServiceFirst() {
    submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT);
    String oldUid = JsonTree.string(mock.get(JOBS + "/mnist"), "metadata", "uid").orElseThrow();
    mock.mergePatch(JOBS + "/mnist/status",
        "{\"status\":{\"conditions\":[{\"type\":\"Failed\",\"status\":\"True\"}]}}");

    TrainingJob job = submit(TestJobs.pyTorchJob("mnist", NS), new SubmitOptions(true));

    Map<String, Object> stored = mock.get(JOBS + "/mnist");
    String newUid = JsonTree.string(stored, "metadata", "uid").orElseThrow();
    assertThat(newUid).isNotEqualTo(oldUid);
    assertThat(stored).doesNotContainKey("status");
    assertThat(job.status().phase()).hasToString("Pending");
    // The Service is the new job's: its owner is the new uid.
    assertThat(JsonTree.maps(mock.get(SERVICES + "/mnist-headless"), "metadata",
        "ownerReferences")).singleElement().satisfies(o -> assertThat(o)
            .containsEntry("uid", newUid));
  }

  @Test
  void aMissingOperatorSaysInstallIt() {
    K8S.server().expect().post().withPath(JOBS)
        .andReturn(404, TestJobs.status(404, "NotFound",
            "the server could not find the requested resource", "{}"))
        .always();

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED);
          assertThat(e.httpStatus()).contains(404);
          assertThat(e.getMessage()).contains("does not serve pytorchjobs.kubeflow.org")
              .contains("Kubeflow training operator");
          assertThat(e.hint().orElseThrow())
              .startsWith("install the Kubeflow training operator: kubectl apply --server-side -k")
              .contains("kubectl get crd pytorchjobs.kubeflow.org");
        });
    // The Service created before the job was rolled back.
    assertThat(mock.get(SERVICES + "/mnist-headless")).isEmpty();
  }

  @Test
  void anRbacDenialNamesVerbResourceNamespaceAndTheRule() {
    K8S.server().expect().post().withPath(JOBS)
        .andReturn(403, TestJobs.status(403, "Forbidden",
            "pytorchjobs.kubeflow.org is forbidden: User \"alice\" cannot create resource"
                + " \"pytorchjobs\" in API group \"kubeflow.org\" in the namespace \"team\"",
            "{\"group\":\"kubeflow.org\",\"kind\":\"pytorchjobs\"}"))
        .always();

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", NS), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
          assertThat(e.httpStatus()).contains(403);
          assertThat(e.getMessage()).startsWith("create PyTorchJob [team/mnist] failed: ");
          assertThat(e.getMessage()).contains("RBAC denies verb 'create'")
              .contains("resource 'pytorchjobs.kubeflow.org'").contains("in namespace team")
              .contains("User \"alice\" cannot create");
          assertThat(e.hint().orElseThrow()).contains("a Role in namespace team")
              .contains("- apiGroups: [\"kubeflow.org\"]")
              .contains("resources: [\"pytorchjobs\"]").contains("verbs: [\"create\"]")
              .contains("kubectl auth can-i create pytorchjobs.kubeflow.org -n team");
          assertThat(e.getMessage()).doesNotContain(KubernetesApiFixture.TOKEN);
        });
    assertThat(mock.get(SERVICES + "/mnist-headless")).isEmpty();
  }

  @Test
  void aMissingNamespaceSaysCreateIt() {
    K8S.server().expect().post().withPath("/api/v1/namespaces/nope/services")
        .andReturn(404, TestJobs.status(404, "NotFound", "namespaces \"nope\" not found",
            "{\"name\":\"nope\",\"kind\":\"namespaces\"}"))
        .always();

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", "nope"), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.NAMESPACE_NOT_FOUND);
          assertThat(e.getMessage()).contains("namespace 'nope' does not exist");
          assertThat(e.hint().orElseThrow()).contains("kubectl create namespace nope");
        });
  }

  @Test
  void aMissingNamespaceIsFoundOutWhenThe404HasNoBody() {
    K8S.server().expect().post().withPath("/api/v1/namespaces/nope/services")
        .andReturn(404, "").always();

    assertThatThrownBy(() -> submit(TestJobs.pyTorchJob("mnist", "nope"), SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.NAMESPACE_NOT_FOUND);
          assertThat(e.hint().orElseThrow()).contains("kubectl create namespace nope");
        });
  }

  @Test
  void anInvalidObjectQuotesTheServerButNeverSecretValues() {
    Map<String, Object> secret = Map.of("apiVersion", "v1", "kind", "Secret",
        "metadata", Map.of("name", "mnist-pull"),
        "stringData", Map.of(".dockerconfigjson", "{\"auths\":{\"r\":{\"auth\":\"c2VjcmV0\"}}}"));
    K8S.server().expect().post().withPath("/api/v1/namespaces/team/secrets")
        .andReturn(422, TestJobs.status(422, "Invalid",
            "Secret \"mnist-pull\" is invalid: data[.dockerconfigjson]: Invalid value:"
                + " \"c2VjcmV0\": invalid character",
            "{\"name\":\"mnist-pull\",\"kind\":\"Secret\"}"))
        .always();
    RenderedJob job = new RenderedJob("PyTorchJob", "mnist", NS,
        List.of(secret, TestJobs.pyTorchObject("mnist")));

    assertThatThrownBy(() -> submit(job, SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.INVALID);
          assertThat(e.httpStatus()).contains(422);
          assertThat(e.getMessage()).contains("data[.dockerconfigjson]: Invalid value: ****")
              .doesNotContain("c2VjcmV0");
        });
    assertThat(mock.get(JOBS + "/mnist")).isEmpty();
  }

  @Test
  void malformedObjectsFailBeforeAnyRequest() {
    Map<String, Object> wrongNamespace = Map.of("apiVersion", "v1", "kind", "Service",
        "metadata", Map.of("name", "svc", "namespace", "other"));
    RenderedJob job = new RenderedJob("PyTorchJob", "mnist", NS,
        List.of(wrongNamespace, TestJobs.pyTorchObject("mnist")));
    int before = K8S.requestCount();

    assertThatThrownBy(() -> submit(job, SubmitOptions.DEFAULT))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("namespace");
          assertThat(e.getMessage()).contains("Service svc declares namespace 'other'");
        });
    RenderedJob trainingNotLast = new RenderedJob("PyTorchJob", "mnist", NS,
        List.of(TestJobs.pyTorchObject("mnist"), TestJobs.headlessService("svc", "mnist")));
    assertThatThrownBy(() -> submit(trainingNotLast, SubmitOptions.DEFAULT))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("render the training object last");
    assertThat(K8S.requestCount()).isEqualTo(before);
  }

  @Test
  void anUnreachableServerSaysSoWithoutCredentials() throws Exception {
    // Port 1 on loopback: nothing listens there.
    Path config = dir.resolve("closed");
    MockObjects.write(config, Files.readString(K8S.kubeconfig()).replace(K8S.url(),
        "http://127.0.0.1:1"));
    KubernetesCluster closed = Clusters.kubernetes().kubeconfig(config);

    assertThatThrownBy(() -> closed.submit(TestJobs.pyTorchJob("mnist", NS), BuildContext.empty(),
        SubmitOptions.DEFAULT, ProgressListener.NONE))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.UNREACHABLE);
          assertThat(e.getMessage()).contains("cannot reach the API server at http://127.0.0.1:1");
          assertThat(e.hint().orElseThrow()).contains("context 'fairing4j-mock'")
              .contains("kubectl cluster-info");
          assertThat(e.getMessage()).doesNotContain(KubernetesApiFixture.TOKEN);
        });
  }
}

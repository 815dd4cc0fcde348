package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.PatchUtils;
import java.io.Reader;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KubernetesApiFixtureTest {
  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  private static final String PYTORCHJOBS = "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs";

  @Test
  void createsAPyTorchJobAndReadsItBack() throws Exception {
    CustomObjectsApi api = new CustomObjectsApi(K8S.apiClient());

    api.createNamespacedCustomObject("kubeflow.org", "v1", "default", "pytorchjobs",
        pyTorchJob("mnist")).execute();
    Object read = api.getNamespacedCustomObject("kubeflow.org", "v1", "default", "pytorchjobs",
        "mnist").execute();

    // client-java decodes untyped JSON with Gson: numbers come back as Double
    JsonNode job = new ObjectMapper().valueToTree(read);
    assertThat(job.path("kind").asText()).isEqualTo("PyTorchJob");
    assertThat(job.at("/spec/pytorchReplicaSpecs/Master/replicas").asDouble()).isEqualTo(1.0);
    assertThat(job.at("/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/image").asText())
        .isEqualTo("python:3.11");
    assertThat(K8S.requestLines()).containsExactly("POST " + PYTORCHJOBS,
        "GET " + PYTORCHJOBS + "/mnist");
  }

  @Test
  void createsPodsAndListsThemByLabelSelector() throws Exception {
    CoreV1Api core = new CoreV1Api(K8S.apiClient());
    core.createNamespacedPod("default", pod("mnist-master-0", "master")).execute();
    core.createNamespacedPod("default", pod("mnist-worker-0", "worker")).execute();

    V1PodList workers = core.listNamespacedPod("default")
        .labelSelector("training.kubeflow.org/replica-type=worker").execute();

    assertThat(workers.getItems()).extracting(p -> p.getMetadata().getName())
        .containsExactly("mnist-worker-0");
  }

  @Test
  void aScriptedExpectationWinsOverTheCrudStore() throws Exception {
    K8S.server().expect().post().withPath(PYTORCHJOBS)
        .andReturn(403, new V1Status().kind("Status").apiVersion("v1").status("Failure")
            .reason("Forbidden").code(403).message("pytorchjobs is forbidden"))
        .once();
    CustomObjectsApi api = new CustomObjectsApi(K8S.apiClient());

    assertThatThrownBy(() -> api.createNamespacedCustomObject("kubeflow.org", "v1", "default",
        "pytorchjobs", pyTorchJob("mnist")).execute())
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.getCode()).isEqualTo(403);
          assertThat(e.getResponseBody()).contains("pytorchjobs is forbidden");
        });
    // once() is used up: the same call now reaches the CRUD store
    api.createNamespacedCustomObject("kubeflow.org", "v1", "default", "pytorchjobs",
        pyTorchJob("mnist")).execute();
    assertThat(K8S.requestCount()).isEqualTo(2);
  }

  @Test
  void requestCountStartsAtZeroInEachTestAndCountsEveryRequest() throws Exception {
    assertThat(K8S.requestCount()).isZero();
    CoreV1Api core = new CoreV1Api(K8S.apiClient());

    core.listNamespacedPod("default").execute();
    assertThatThrownBy(() -> core.readNamespacedPod("missing", "default").execute())
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(404));

    assertThat(K8S.requestCount()).isEqualTo(2);
    assertThat(K8S.requestLines()).containsExactly("GET /api/v1/namespaces/default/pods",
        "GET /api/v1/namespaces/default/pods/missing");
  }

  @Test
  void resetEmptiesTheStore() throws Exception {
    CoreV1Api core = new CoreV1Api(K8S.apiClient());
    core.createNamespacedPod("default", pod("mnist-master-0", "master")).execute();

    K8S.reset();

    assertThat(core.listNamespacedPod("default").execute().getItems()).isEmpty();
    assertThat(K8S.requestCount()).isEqualTo(1);
  }

  @Test
  void acceptsAMergePatchOfTheStatusSubresource() throws Exception {
    CustomObjectsApi api = new CustomObjectsApi(K8S.apiClient());
    api.createNamespacedCustomObject("kubeflow.org", "v1", "default", "pytorchjobs",
        pyTorchJob("mnist")).execute();
    String status = "{\"status\":{\"conditions\":[{\"type\":\"Running\",\"status\":\"True\"}]}}";

    PatchUtils.patch(Object.class, () -> api.patchNamespacedCustomObjectStatus("kubeflow.org",
            "v1", "default", "pytorchjobs", "mnist", new V1Patch(status)).buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, K8S.apiClient());

    Object read = api.getNamespacedCustomObject("kubeflow.org", "v1", "default", "pytorchjobs",
        "mnist").execute();
    assertThat(read.toString()).contains("conditions=[{type=Running, status=True}]");
  }

  @Test
  void writesAKubeconfigWithTokenAuthAndTheDefaultNamespace() throws Exception {
    KubeConfig config;
    try (Reader reader = Files.newBufferedReader(K8S.kubeconfig())) {
      config = KubeConfig.loadKubeConfig(reader);
    }
    ApiClient client = ClientBuilder.kubeconfig(config).build();

    new CoreV1Api(client).listNamespacedPod(config.getNamespace()).execute();

    assertThat(config.getNamespace()).isEqualTo("default");
    assertThat(config.getServer()).isEqualTo(K8S.url());
    assertThat(K8S.requests()).singleElement().satisfies(request ->
        assertThat(request.getHeader("Authorization")).isEqualTo("Bearer " + KubernetesApiFixture.TOKEN));
  }

  @Test
  void resolvesItselfAndTheApiClientAsTestParameters(KubernetesApiFixture fixture, ApiClient client) {
    assertThat(fixture).isSameAs(K8S);
    assertThat(client).isSameAs(K8S.apiClient());
    assertThat(client.getBasePath()).isEqualTo(K8S.url()).startsWith("http://127.0.0.1:");
  }

  private static Map<String, Object> pyTorchJob(String name) {
    return Map.of("apiVersion", "kubeflow.org/v1", "kind", "PyTorchJob",
        "metadata", Map.of("name", name, "namespace", "default"),
        "spec", Map.of("pytorchReplicaSpecs", Map.of("Master", Map.of("replicas", 1,
            "restartPolicy", "OnFailure", "template", Map.of("spec", Map.of("containers",
                List.of(Map.of("name", "pytorch", "image", "python:3.11"))))))));
  }

  private static V1Pod pod(String name, String replicaType) {
    return new V1Pod().apiVersion("v1").kind("Pod")
        .metadata(new V1ObjectMeta().name(name).namespace("default")
            .putLabelsItem("training.kubeflow.org/replica-type", replicaType))
        .spec(new V1PodSpec().addContainersItem(new V1Container().name("pytorch").image("x")));
  }
}

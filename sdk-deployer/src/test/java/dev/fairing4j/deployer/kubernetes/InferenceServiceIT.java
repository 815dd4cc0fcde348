package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.EndpointDeployer;
import dev.fairing4j.core.EndpointNotReadyException;
import dev.fairing4j.core.EndpointStatus;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.serving.DeploymentMode;
import dev.fairing4j.deployer.serving.InferenceServiceDeployer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * {@code Deployers.inferenceService(..)} on a real API server of this test's own: without KServe
 * the submission says how to install it and creates nothing; with KServe v0.19's CRD both forms
 * (a custom container, a stored model on a claim) are created with strict field validation. No
 * KServe controller runs here, so the test plays its part where a test needs one (it writes the
 * status KServe would through the {@code /status} subresource): the endpoint reads readiness
 * and the URL from it, and KServe's verdict on a model that failed to load ends the wait at once.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InferenceServiceIT {
  private static final String MERGE_PATCH = "application/merge-patch+json";
  private static KubeApiServer server;
  private static String ns;
  private static KubernetesCluster cluster;

  @BeforeAll
  static void start() {
    server = KubeApiServer.start();
    ns = server.createNamespace("kserve");
    cluster = Clusters.kubernetes().kubeconfig(server.kubeconfig(User.SDK, ns))
        .withTimings(TestJobs.FAST);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  @Order(1)
  void aClusterWithoutKServeGetsTheInstallCommandAndNothingIsCreated() {
    AuditLog.Mark mark = server.audit().mark();

    assertThatThrownBy(() -> stored("no-kserve").serve())
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED);
          assertThat(e.getMessage()).contains("KServe is missing",
              "helm install kserve-crd oci://ghcr.io/kserve/charts/kserve-crd --version v0.19.0",
              "kubectl get crd inferenceservices.serving.kserve.io",
              "Deployers.serving(..)");
        });
    assertThat(server.audit().since(mark, User.SDK)).allMatch(r -> !r.verb().equals("create")
        || r.uri().contains("inferenceservices"));
  }

  @Test
  @Order(2)
  void bothFormsAreCreatedWithStrictValidationOnAServerWithKServesCrd() {
    installKServe();
    // The steps Pipeline.serve() calls, with an image built elsewhere.
    EndpointDeployer steps = (EndpointDeployer) Deployers.inferenceService("custom")
        .canaryTrafficPercent(20).maxReplicas(2).deploymentMode(DeploymentMode.RAW_DEPLOYMENT)
        .mutate(Mutators.pvc("traindb-models-claim", "/opt/mnist/models"))
        .namespace(ns).on(cluster).asDeployer();
    Endpoint custom = steps.serve(Fixtures.predictorContext(),
        Optional.of(Fixtures.image()), ProgressListener.NONE);
    Endpoint model = stored("stored").serve();

    Map<String, Object> created = server.request("GET", isvc("custom"), null);
    assertThat(Fixtures.<Object>at(created, "spec", "predictor", "canaryTrafficPercent"))
        .isEqualTo(20);
    assertThat(Fixtures.<Object>at(created, "metadata", "annotations",
        "serving.kserve.io/deploymentMode")).isEqualTo("RawDeployment");
    assertThat(Fixtures.<Object>at(server.request("GET", isvc("stored"), null), "spec",
        "predictor", "model", "storageUri")).isEqualTo("pvc://traindb-models-claim/mnist");
    assertThat(custom.url()).isEqualTo("http://custom-predictor." + ns
        + ".svc.cluster.local/v1/models/mnist_predictor:predict");
    assertThat(model.modelName()).isEqualTo("stored");

    TrainingClient client = TrainingClient.connect(cluster).inNamespace(ns);
    assertThat(client.endpoints().endpoints()).extracting(EndpointStatus::name)
        .containsExactly("custom", "stored");
    assertThat(client.attachEndpoint("custom").modelName()).as("read back from the probe")
        .isEqualTo("mnist_predictor");
    assertThat(client.attachEndpoint("stored").url()).isEqualTo(model.url());
    assertThatThrownBy(() -> client.attachEndpoint("nothing"))
        .hasMessageContaining("no serving Deployment or InferenceService named 'nothing'");

    EndpointStatus waiting = model.status();
    assertThat(waiting.ready()).isFalse();
    assertThat(waiting.problem()).isEmpty();
    assertThat(waiting.kind()).isEqualTo("InferenceService");

    // What KServe's controller writes once the predictor serves.
    playStatus("stored", Map.of("conditions", List.of(condition("PredictorReady", "True"),
        condition("Ready", "True")), "address", Map.of("url",
        "http://stored-predictor." + ns + ".svc.cluster.local")));
    EndpointStatus ready = model.waitUntilReady(Duration.ofSeconds(20));
    assertThat(ready.ready()).isTrue();
    assertThat(ready.url()).isEqualTo("http://stored-predictor." + ns
        + ".svc.cluster.local/v1/models/stored:predict");

    custom.delete();
    model.delete();
    assertThat(server.send("GET", isvc("custom"), null).status()).isEqualTo(404);
    assertThat(server.send("GET", isvc("stored"), null).status()).isEqualTo(404);
  }

  @Test
  @Order(3)
  void kservesVerdictOnAModelThatFailedToLoadEndsTheWaitAtOnce() {
    installKServe();
    Endpoint model = stored("broken").serve();
    try {
      playStatus("broken", Map.of("conditions", List.of(condition("Ready", "False")),
          "modelStatus", Map.of("transitionStatus", "BlockedByFailedLoad", "lastFailureInfo",
              Map.of("reason", "ModelLoadFailed", "message", "no mnist.pt under /mnt/models"))));

      assertThatThrownBy(() -> model.waitUntilReady(Duration.ofMinutes(2)))
          .isInstanceOfSatisfying(EndpointNotReadyException.class, e -> {
            assertThat(e.timedOut()).isFalse();
            assertThat(e.getMessage()).contains("KServe reports BlockedByFailedLoad"
                + " (ModelLoadFailed): no mnist.pt under /mnt/models");
          });
    } finally {
      model.delete();
    }
  }

  // The CRD first, then the garbage collector that finishes delete()'s Foreground deletion: it
  // learns the resources it collects when it starts (and only every 30 s after that).
  private static void installKServe() {
    server.applyCrds(KubeApiServer.KSERVE_CRDS);
    server.withControllers();
  }

  private static InferenceServiceDeployer stored(String name) {
    return Deployers.inferenceService(name).storedModel("pytorch",
        "pvc://traindb-models-claim/mnist").namespace(ns).on(cluster);
  }

  private static String isvc(String name) {
    return "/apis/serving.kserve.io/v1beta1/namespaces/" + ns + "/inferenceservices/" + name;
  }

  private static Map<String, Object> condition(String type, String status) {
    return Map.of("type", type, "status", status, "lastTransitionTime", "2026-11-28T10:00:00Z");
  }

  private static void playStatus(String name, Map<String, Object> status) {
    Response response = server.send(User.FIXTURE, "PATCH", isvc(name) + "/status",
        Map.of("status", status), MERGE_PATCH);
    assertThat(response.status()).as(response.toString()).isEqualTo(200);
  }
}

package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.trainer.TrainJobDeployer;
import dev.fairing4j.deployer.trainer.TrainerApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The Trainer versions in the wild, on an API server of this test's own: first without the
 * Trainer's CRDs (the submission says how to install it), then with Trainer v2.0.1's (the
 * version the cluster kit runs). With {@link TrainerApi#AUTO} the SDK reads the cluster's
 * TrainJob schema from the published OpenAPI document once and sends v2.0's shape
 * ({@code podSpecOverrides}, {@code spec.labels}), which the server accepts strictly; an explicit
 * v2.3 and what v2.0 has no field for fail before anything is created. v2.0's golden TrainJob is
 * accepted, v2.3's {@code runtimePatches} are unknown there.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TrainJobOnTrainerV20IT {
  private static KubeApiServer server;
  private static String ns;
  private static KubernetesCluster cluster;

  @BeforeAll
  static void start() {
    server = KubeApiServer.start();
    ns = server.createNamespace("trainer-v20");
    cluster = Clusters.kubernetes().kubeconfig(server.kubeconfig(User.SDK, ns))
        .withTimings(TestJobs.FAST);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static void submit(TrainJobDeployer deployer) {
    deployer.namespace(ns).on(cluster).asDeployer().deploy(Fixtures.context(),
        Optional.of(Fixtures.image()), ProgressListener.NONE);
  }

  @Test
  @Order(1)
  void aClusterWithoutTheTrainerGetsTheInstallCommand() {
    AuditLog.Mark mark = server.audit().mark();

    assertThatThrownBy(() -> submit(Deployers.trainJob("mnist")))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED);
          assertThat(e.getMessage()).contains("Kubeflow Trainer v2 is missing",
              "manifests/overlays/manager?ref=v2.3.0", "manifests/overlays/runtimes?ref=v2.3.0",
              "kubectl get crd clustertrainingruntimes.trainer.kubeflow.org");
        });
    assertThat(server.audit().since(mark, User.SDK)).noneMatch(r -> r.verb().equals("create"));
  }

  @Test
  @Order(2)
  void withV20TheSdkSendsPodSpecOverridesWhichTheServerAcceptsStrictly() {
    installV20();
    AuditLog.Mark mark = server.audit().mark();

    submit(Deployers.trainJob("mnist").numNodes(2).label("team", "vision")
        .mutate(Mutators.pvc("data", "/data").readOnly())
        .mutate(Mutators.nodeSelector("pool", "cpu")));

    Map<String, Object> stored = server.request("GET", "/apis/trainer.kubeflow.org/v1alpha1"
        + "/namespaces/" + ns + "/trainjobs/mnist", null);
    assertThat(JsonTree.map(stored, "spec")).doesNotContainKey("runtimePatches")
        .containsKeys("podSpecOverrides", "labels");
    assertThat(JsonTree.maps(stored, "spec", "podSpecOverrides")).singleElement()
        .satisfies(o -> assertThat(o.toString()).contains("claimName=data", "pool=cpu",
            "targetJobs=[{name=node}]"));
    assertThat(JsonTree.string(stored, "spec", "labels", "team")).contains("vision");
    List<String> lines = server.audit().since(mark, User.SDK).stream()
        .map(AuditLog.Request::line).toList();
    assertThat(lines).contains("get /openapi/v3/apis/trainer.kubeflow.org/v1alpha1",
        "create /apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns
            + "/trainjobs?fieldValidation=Strict");
  }

  @Test
  @Order(3)
  void whatV20CannotTakeFailsBeforeAnythingIsCreated() {
    installV20();
    AuditLog.Mark mark = server.audit().mark();

    assertThatThrownBy(() -> submit(Deployers.trainJob("explicit").trainerApi(TrainerApi.V2_3)
        .mutate(Mutators.pvc("data", "/data"))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the cluster's TrainJob CRD is Trainer v2.0 (podSpecOverrides)")
        .hasMessageContaining(".trainerApi(TrainerApi.AUTO) or V2_0");
    assertThatThrownBy(() -> submit(Deployers.trainJob("pulls")
        .mutate(Mutators.imagePullSecrets("creds"))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Trainer v2.0's TrainJob has no field for imagePullSecrets");
    assertThat(server.audit().since(mark, User.SDK)).noneMatch(r -> r.verb().equals("create"));
  }

  @Test
  @Order(4)
  void theV20GoldenIsAcceptedAndRuntimePatchesAreUnknownHere() throws IOException {
    installV20();
    Path golden = Path.of("src", "test", "resources", "golden", "trainjob");
    Map<String, Object> v20 = Fixtures.trainingObject(Files.readString(
        golden.resolve("v2.0-shape.yaml")));
    Map<String, Object> v23 = Fixtures.trainingObject(Files.readString(
        golden.resolve("pytorch-simple-2-nodes.yaml")));

    assertThat(dryRun(v20).status()).isEqualTo(201);
    Response refused = dryRun(v23);
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.body()).contains("unknown field \\\"spec.runtimePatches\\\"");
  }

  private static Response dryRun(Map<String, Object> job) {
    Fixtures.<Map<String, Object>>at(job, "metadata").put("namespace", ns);
    // A name of its own: a job called mnist exists here already.
    Fixtures.<Map<String, Object>>at(job, "metadata").put("name", "golden");
    return server.send(User.FIXTURE, "POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/"
        + ns + "/trainjobs?fieldValidation=Strict&dryRun=All", job, "application/json");
  }

  /**
   * Applies v2.0.1's CRDs and the kit's torch-distributed runtime once, then waits until the API
   * server publishes the TrainJob schema (it does so a moment after the CRD is established).
   */
  private static synchronized void installV20() {
    server.applyCrds(KubeApiServer.TRAINER_V2_0_CRDS);
    Response runtime = server.send("POST",
        "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes",
        PlayedTrainer.yaml("kubeflow/trainer-v2.0.1/runtimes/torch_distributed.yaml"));
    assertThat(runtime.status()).as(runtime.toString()).isIn(201, 409);
    PlayedOperator.await("the TrainJob schema is published", () -> JsonTree.string(
        server.send("GET", "/openapi/v3", null).json(), "paths",
        "apis/trainer.kubeflow.org/v1alpha1", "serverRelativeURL").isPresent());
  }
}

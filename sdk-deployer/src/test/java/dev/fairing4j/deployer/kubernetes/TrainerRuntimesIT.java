package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.trainer.RuntimeList;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kubeflow SDK's {@code list_runtimes()}, {@code get_runtime(name)} and
 * {@code get_runtime_packages(runtime)} against a real API server with the Trainer v2.3.0 CRDs and
 * the runtimes Trainer ships (torch, DeepSpeed with a launcher beside its nodes, XGBoost) plus a
 * namespaced TrainingRuntime that asks for GPUs: each shows its framework, node count, GPUs and
 * the image of its {@code node} container; a name that does not exist is answered with those that
 * do. Reading packages creates a one-node TrainJob on the runtime with its image and deletes it
 * when the wait ends (here by a timeout: no Trainer runs it; the kit runs it for real,
 * ClusterTrainerRuntimePackagesIT).
 */
@Timeout(120)
class TrainerRuntimesIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers()
      .withCrds(KubeApiServer.TRAINER_V2_CRDS);

  private String ns;
  private TrainingClient client;

  @BeforeEach
  void runtimes() {
    ns = K8S.namespace();
    shipped("torch_distributed.yaml", "rt-torch");
    shipped("deepspeed_distributed.yaml", "rt-deepspeed");
    shipped("xgboost_distributed.yaml", "rt-xgboost");
    Map<String, Object> gpu = PlayedTrainer.yaml(
        "kubeflow/trainer/runtimes/torch_distributed.yaml");
    gpu.put("kind", "TrainingRuntime");
    JsonTree.map(gpu, "metadata").put("name", "team-gpu");
    JsonTree.map(gpu, "spec", "mlPolicy").put("numNodes", 2);
    Map<String, Object> node = JsonTree.maps(gpu, "spec", "template", "spec", "replicatedJobs")
        .get(0);
    Map<String, Object> container = JsonTree.maps(node, "template", "spec", "template", "spec",
        "containers").get(0);
    container.put("image", "registry.example.com/team/torch:2.5");
    container.put("resources", Map.of("limits", Map.of("nvidia.com/gpu", "4")));
    KubeApiServer.Response response = K8S.server().send("POST",
        "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns + "/trainingruntimes", gpu);
    assertThat(response.status()).as(response.toString()).isEqualTo(201);
    client = TrainingClient.connect(Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST)).inNamespace(ns);
  }

  /** A runtime Trainer ships, under a name of its own (cluster-wide: tests share them). */
  private static void shipped(String file, String name) {
    Map<String, Object> runtime = PlayedTrainer.yaml("kubeflow/trainer/runtimes/" + file);
    JsonTree.map(runtime, "metadata").put("name", name);
    KubeApiServer.Response response = K8S.server().send("POST",
        "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes", runtime);
    assertThat(response.status()).as(response.toString()).isIn(201, 409);
  }

  @Test
  void theRuntimesShowTheirFrameworkNodesGpusAndTheImageOfTheirNodeStep() {
    RuntimeList runtimes = client.runtimes();

    assertThat(runtimes.find("rt-torch")).contains(new TrainingRuntime("rt-torch",
        "ClusterTrainingRuntime", Optional.empty(), Optional.of("torch"), 1,
        Optional.of("pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"), 0));
    assertThat(runtimes.find("rt-deepspeed")).as("the node step's image, not the launcher's")
        .get().satisfies(r -> {
          assertThat(r.framework()).contains("deepspeed");
          assertThat(r.image()).contains("ghcr.io/kubeflow/trainer/deepspeed-runtime");
        });
    assertThat(runtimes.find("rt-xgboost")).get().extracting(r -> r.framework().orElseThrow())
        .isEqualTo("xgboost");
    assertThat(runtimes.find("team-gpu")).contains(new TrainingRuntime("team-gpu",
        "TrainingRuntime", Optional.of(ns), Optional.of("torch"), 2,
        Optional.of("registry.example.com/team/torch:2.5"), 4));
    List<String> names = runtimes.names();
    assertThat(names.indexOf("team-gpu")).as("cluster-wide first, then the namespace's")
        .isEqualTo(names.size() - 1);
    assertThat(runtimes.toString()).containsPattern(
        "team-gpu +TrainingRuntime +torch +2 +4 +registry.example.com/team/torch:2.5")
        .endsWith("ClusterTrainingRuntimes, and the TrainingRuntimes of namespace " + ns);
    assertThat(K8S.requestLines()).contains(
        "list /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes",
        "list /apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns + "/trainingruntimes");
  }

  @Test
  void aRuntimeIsFoundByNameAndAMissingOneNamesThoseThatExist() {
    assertThat(client.runtime("team-gpu").namespace()).contains(ns);
    assertThat(client.runtime("rt-torch").clusterWide()).isTrue();

    FairingException missing = catchThrowableOfType(() -> client.runtime("rt-torhc"),
        FairingException.class);
    assertThat(missing).hasMessageContaining("no ClusterTrainingRuntime or TrainingRuntime named"
        + " 'rt-torhc'").hasMessageContaining("rt-torch").hasMessageContaining("team-gpu");
    assertThat(client.inNamespace("other").runtimes().names()).as("another namespace sees the"
        + " cluster-wide ones only").contains("rt-torch").doesNotContain("team-gpu");
  }

  @Test
  void readingPackagesRunsAOneNodeTrainJobOfTheRuntimesImageAndDeletesIt() {
    JobTimeoutException timeout = catchThrowableOfType(() -> client.runtimePackages("team-gpu",
        Duration.ofSeconds(2)), JobTimeoutException.class);

    assertThat(timeout).as("no Trainer runs it here").isNotNull();
    String trainJobs = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns + "/trainjobs";
    List<String> lines = K8S.requestLines();
    String create = lines.stream().filter(l -> l.startsWith("create " + trainJobs)).findFirst()
        .orElseThrow(() -> new AssertionError("no TrainJob created: " + lines));
    assertThat(create).contains("?fieldValidation=Strict");
    String name = timeout.lastStatus().name();
    assertThat(name).startsWith("packages-team-gpu-");
    assertThat(lines).as("deleted when the wait ended").contains("delete " + trainJobs + "/"
        + name);
    assertThat(timeout.lastStatus().kind()).isEqualTo("TrainJob");
  }
}

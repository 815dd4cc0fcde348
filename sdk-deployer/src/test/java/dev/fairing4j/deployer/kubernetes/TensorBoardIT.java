package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.monitor.TensorBoard;
import dev.fairing4j.deployer.monitor.TensorBoardInstance;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A TensorBoard Deployment + Service on a real API server: accepted by its validation, owned by
 * the job, kept when started again, and deleted with the job by the garbage collector.
 */
class TensorBoardIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  private final RealApiObjects api = new RealApiObjects(K8S);
  private TrainingJob job;
  private String deployment;
  private String service;

  @BeforeEach
  void submit() {
    job = api.cluster().submit(TestJobs.pyTorchJob("mnist", api.ns()), BuildContext.empty(),
        SubmitOptions.DEFAULT, e -> { });
    deployment = "/apis/apps/v1/namespaces/" + api.ns() + "/deployments/mnist-tensorboard";
    service = api.services() + "/mnist-tensorboard";
  }

  @Test
  void startCreatesADeploymentAndServiceOwnedByTheJob() {
    TensorBoardInstance tb = TensorBoard.forJob(job).logDir("traindb-models-claim",
        "/runs/mnist/").start();

    String uid = api.uid(api.jobs() + "/mnist");
    Map<String, Object> deployment = api.get(this.deployment);
    Map<String, Object> service = api.get(this.service);
    for (Map<String, Object> object : List.of(deployment, service)) {
      assertThat(JsonTree.maps(object, "metadata", "ownerReferences")).singleElement()
          .satisfies(owner -> {
            assertThat(owner).containsEntry("kind", "PyTorchJob").containsEntry("name", "mnist")
                .containsEntry("uid", uid).containsEntry("apiVersion", "kubeflow.org/v1");
          });
    }
    Map<String, Object> container = JsonTree.maps(deployment, "spec", "template", "spec",
        "containers").get(0);
    assertThat(container).containsEntry("image", TensorBoard.DEFAULT_IMAGE)
        .containsEntry("command", List.of("tensorboard"))
        .containsEntry("args", List.of("--logdir", "/tensorboard-logs/runs/mnist", "--bind_all",
            "--port", "6006"));
    assertThat(JsonTree.string(JsonTree.maps(deployment, "spec", "template", "spec", "volumes")
        .get(0), "persistentVolumeClaim", "claimName")).contains("traindb-models-claim");
    assertThat(JsonTree.map(deployment, "spec", "selector", "matchLabels"))
        .isEqualTo(JsonTree.map(service, "spec", "selector"))
        .isEqualTo(Map.of("app.kubernetes.io/instance", "mnist-tensorboard"));
    assertThat(JsonTree.integer(JsonTree.maps(service, "spec", "ports").get(0), "port"))
        .contains(6006);
    assertThat(tb.portForwardCommand()).isEqualTo("kubectl port-forward -n " + api.ns()
        + " svc/mnist-tensorboard 6006:6006");
    assertThat(tb.toString()).contains("http://localhost:6006");
    // Starting again (a re-run notebook cell) keeps what exists.
    String deploymentUid = api.uid(this.deployment);
    assertThat(TensorBoard.forJob(job).logDir("traindb-models-claim", "runs/mnist").start())
        .isEqualTo(tb);
    assertThat(api.uid(this.deployment)).isEqualTo(deploymentUid);
  }

  @Test
  void deletingTheJobDeletesTheTensorBoardFirst() {
    TensorBoard.forJob(job).logDir("traindb-models-claim", "runs/mnist").start();

    job.delete();

    // Foreground deletion: the objects that block their owner's deletion went before the job.
    assertThat(api.get(api.jobs() + "/mnist")).isEmpty();
    assertThat(api.get(deployment)).isEmpty();
    assertThat(api.get(service)).isEmpty();
    api.awaitGone(api.services() + "/mnist-headless");
  }
}

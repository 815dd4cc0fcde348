package dev.fairing4j.deploy.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.internal.SubmitOptions;
import dev.fairing4j.deploy.kubernetes.internal.JsonTree;
import dev.fairing4j.deploy.monitor.TensorBoard;
import dev.fairing4j.deploy.monitor.TensorBoardInstance;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A TensorBoard Deployment + Service owned by the job, against the CRUD mock. */
class TensorBoardTest {
  private static final String NS = "team";

  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  private final MockObjects mock = new MockObjects(K8S);
  private TrainingJob job;

  @BeforeEach
  void submit() {
    K8S.reset();
    job = Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(TestJobs.FAST)
        .submit(TestJobs.pyTorchJob("mnist", NS), BuildContext.empty(), SubmitOptions.DEFAULT,
            e -> { });
  }

  @Test
  void startCreatesADeploymentAndServiceOwnedByTheJob() {
    TensorBoardInstance tb = TensorBoard.forJob(job).logDir("traindb-models-claim",
        "/runs/mnist/").start();

    String uid = JsonTree.string(mock.get("/apis/kubeflow.org/v1/namespaces/" + NS
        + "/pytorchjobs/mnist"), "metadata", "uid").orElseThrow();
    Map<String, Object> deployment = mock.get("/apis/apps/v1/namespaces/" + NS
        + "/deployments/mnist-tensorboard");
    Map<String, Object> service = mock.get("/api/v1/namespaces/" + NS
        + "/services/mnist-tensorboard");
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
    assertThat(tb.portForwardCommand())
        .isEqualTo("kubectl port-forward -n team svc/mnist-tensorboard 6006:6006");
    assertThat(tb.toString()).contains("http://localhost:6006");
    // Starting again (a re-run notebook cell) keeps what exists.
    assertThat(TensorBoard.forJob(job).logDir("traindb-models-claim", "runs/mnist").start())
        .isEqualTo(tb);
  }

  @Test
  void optionsAndMistakes() {
    TensorBoard base = TensorBoard.forJob(job);
    Map<String, Object> deployment = base.logDir("claim", "").image("my/tb:1").name("tb")
        .manifests().get(0);
    assertThat(JsonTree.string(deployment, "metadata", "name")).contains("tb");
    assertThat(JsonTree.maps(deployment, "spec", "template", "spec", "containers").get(0))
        .containsEntry("image", "my/tb:1")
        .containsEntry("args", List.of("--logdir", "/tensorboard-logs", "--bind_all", "--port",
            "6006"));
    assertThatThrownBy(base::start).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("logDir");
    assertThatThrownBy(() -> base.logDir("claim", "../etc"))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> base.logDir("Not_A_Claim", "x"))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> TensorBoard.forJob(new ElsewhereJob()).logDir("c", "x").start())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Kubernetes");
  }

  /** A job that runs somewhere without owned objects (the local cluster, say). */
  private static final class ElsewhereJob implements TrainingJob {
    @Override
    public String name() {
      return "local";
    }

    @Override
    public String namespace() {
      return "default";
    }

    @Override
    public String kind() {
      return "PyTorchJob";
    }

    @Override
    public JobStatus status() {
      throw new UnsupportedOperationException();
    }

    @Override
    public JobStatus waitForCompletion(Duration timeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public JobLogs logs() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void delete() {
      throw new UnsupportedOperationException();
    }
  }
}

package dev.fairing4j.deploy.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.Deployers;
import dev.fairing4j.deploy.Fixtures;
import dev.fairing4j.deploy.Mutators;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two halves of the deployer together: what a deployer renders is what lands in the API
 * server, in the namespace the user meant, and the returned handle follows that object.
 */
class DeployerToKubernetesTest {
  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  private final MockObjects mock = new MockObjects(K8S);

  @Test
  void deployStoresExactlyWhatRenderShowsInTheClustersNamespace() {
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .namespace("team").withTimings(TestJobs.FAST);
    var deployer = Deployers.pyTorchJob("mnist").workers(1)
        .mutate(Mutators.pvc("traindb-models-claim", "/opt/mnist/models"))
        .on(cluster);

    String yaml = deployer.render(Fixtures.context(), Optional.of(Fixtures.image()));
    TrainingJob job = deployer.deploy(Fixtures.context(), Optional.of(Fixtures.image()),
        ProgressListener.NONE);

    Map<String, Object> stored = mock.get(
        "/apis/kubeflow.org/v1/namespaces/team/pytorchjobs/mnist");
    Map<String, Object> rendered = Fixtures.trainingObject(yaml);
    assertThat(job.namespace()).isEqualTo("team");
    assertThat(stored.get("spec")).isEqualTo(rendered.get("spec"));
    assertThat(Fixtures.<String>at(stored, "metadata", "namespace")).isEqualTo("team");
    assertThat(Fixtures.<String>at(stored, "spec", "pytorchReplicaSpecs", "Master", "template",
        "spec", "containers", 0, "image")).isEqualTo(Fixtures.image().reference())
        .contains("@sha256:");
    CrdSchemaValidator.load().assertValid(stored);
  }

  @Test
  void theDeployersOwnNamespaceWinsOverTheClusters() {
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .namespace("team").withTimings(TestJobs.FAST);

    TrainingJob job = Deployers.pyTorchJob("mnist").namespace("kubeflow").on(cluster)
        .deploy(Fixtures.context(), Optional.of(Fixtures.image()), ProgressListener.NONE);

    assertThat(job.namespace()).isEqualTo("kubeflow");
    assertThat(mock.get("/apis/kubeflow.org/v1/namespaces/kubeflow/pytorchjobs/mnist"))
        .isNotEmpty();
    assertThat(mock.get("/apis/kubeflow.org/v1/namespaces/team/pytorchjobs/mnist")).isEmpty();
  }

  @Test
  void withoutAnyNamespaceTheKubeconfigContextsApplies() {
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST);

    TrainingJob job = Deployers.pyTorchJob("mnist").on(cluster)
        .deploy(Fixtures.context(), Optional.of(Fixtures.image()), ProgressListener.NONE);

    assertThat(job.namespace()).isEqualTo(cluster.defaultNamespace());
  }

  @Test
  void theHandleFollowsTheSubmittedJobToSuccess() {
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .namespace("team").withTimings(TestJobs.FAST);
    TrainingJob job = Deployers.pyTorchJob("mnist").workers(1).on(cluster)
        .deploy(Fixtures.context(), Optional.of(Fixtures.image()), ProgressListener.NONE);
    assertThat(job.status().phase()).isEqualTo(JobPhase.PENDING);

    mock.mergePatch("/apis/kubeflow.org/v1/namespaces/team/pytorchjobs/mnist/status",
        "{\"status\":{\"conditions\":["
            + KubernetesJobHandleTest.condition("Created", "True", "PyTorchJobCreated", "")
            + "," + KubernetesJobHandleTest.condition("Running", "False", "PyTorchJobRunning", "")
            + "," + KubernetesJobHandleTest.condition("Succeeded", "True", "PyTorchJobSucceeded",
                "PyTorchJob mnist is successfully completed.")
            + "]}}");

    assertThat(job.waitForCompletion(Duration.ofSeconds(10)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
  }
}

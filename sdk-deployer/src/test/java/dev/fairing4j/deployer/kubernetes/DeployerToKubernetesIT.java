package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two halves of the deployer together on a real API server: what a deployer renders is what
 * the server stores (plus the CRD schema's defaults), in the namespace the user meant, and the
 * returned handle follows that object as the operator updates its status.
 */
class DeployerToKubernetesIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared();

  private final RealApiObjects api = new RealApiObjects(K8S);

  @Test
  void deployStoresExactlyWhatRenderShowsInTheClustersNamespace() {
    String ns = api.ns();
    KubernetesCluster cluster = api.cluster().namespace(ns);
    var deployer = Deployers.pyTorchJob("mnist").workers(1)
        .mutate(Mutators.pvc("traindb-models-claim", "/opt/mnist/models"))
        .on(cluster);

    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));
    TrainingJob job = deployer.asDeployer().deploy(Fixtures.context(),
        Optional.of(Fixtures.image()),
        ProgressListener.NONE);

    Map<String, Object> stored = api.get(api.jobs() + "/mnist");
    Map<String, Object> rendered = Fixtures.trainingObject(yaml);
    assertThat(job.namespace()).isEqualTo(ns);
    // Nothing pruned or changed; the server only wrote the CRD schema's defaults.
    assertThat(RealApiObjects.addedByServer(rendered.get("spec"), stored.get("spec")))
        .containsExactlyInAnyOrder(
            ".pytorchReplicaSpecs.Master.template.spec.containers[0].ports[0].protocol=TCP",
            ".pytorchReplicaSpecs.Worker.template.spec.containers[0].ports[0].protocol=TCP",
            ".runPolicy.suspend=false");
    assertThat(Fixtures.<String>at(stored, "metadata", "namespace")).isEqualTo(ns);
    assertThat(Fixtures.<String>at(stored, "spec", "pytorchReplicaSpecs", "Master", "template",
        "spec", "containers", 0, "image")).isEqualTo(Fixtures.image().reference())
        .contains("@sha256:");
    CrdSchemaValidator.load().assertValid(stored);
  }

  @Test
  void theDeployersOwnNamespaceWinsOverTheClusters() {
    String ns = api.ns();
    String other = api.server().createNamespace("deployer-own");
    KubernetesCluster cluster = api.cluster().namespace(ns);

    TrainingJob job = Deployers.pyTorchJob("mnist").namespace(other).on(cluster)
        .asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
            ProgressListener.NONE);

    assertThat(job.namespace()).isEqualTo(other);
    assertThat(api.get("/apis/kubeflow.org/v1/namespaces/" + other + "/pytorchjobs/mnist"))
        .isNotEmpty();
    assertThat(api.get(api.jobs() + "/mnist")).isEmpty();
  }

  @Test
  void withoutAnyNamespaceTheKubeconfigContextsApplies() {
    KubernetesCluster cluster = api.cluster();

    TrainingJob job = Deployers.pyTorchJob("mnist").on(cluster)
        .asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
            ProgressListener.NONE);

    assertThat(cluster.defaultNamespace()).isEqualTo(api.ns());
    assertThat(job.namespace()).isEqualTo(api.ns());
    assertThat(api.get(api.jobs() + "/mnist")).isNotEmpty();
  }

  @Test
  void theHandleFollowsTheSubmittedJobToSuccess() {
    KubernetesCluster cluster = api.cluster();
    TrainingJob job = Deployers.pyTorchJob("mnist").workers(1).on(cluster)
        .asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
            ProgressListener.NONE);
    assertThat(job.status().phase()).isEqualTo(JobPhase.PENDING);

    // The operator's write: through the status subresource, as its controller does.
    api.mergePatch(api.jobs() + "/mnist/status", RealApiObjects.succeededStatus("mnist"));

    assertThat(job.waitForCompletion(Duration.ofSeconds(60)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
  }
}

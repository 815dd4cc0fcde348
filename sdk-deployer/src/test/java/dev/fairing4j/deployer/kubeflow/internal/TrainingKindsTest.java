package dev.fairing4j.deployer.kubeflow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology.Group;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology.Replica;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKinds;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.kubeflow.TfJobDeployer;
import dev.fairing4j.deployer.kubeflow.XGBoostJobDeployer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The operator's kinds as their rooms provide them: found through ServiceLoader, and on a
 * cluster's network injecting exactly CONTRACT.md's values (host names, declared ports).
 */
class TrainingKindsTest {
  private static final JsonNode NO_SPEC = new ObjectMapper().createObjectNode();

  @Test
  void theServiceLoaderFindsTheOperatorsThreeKindsWithTheirDeployersConstants() {
    assertThat(TrainingKinds.all()).extracting(TrainingKind::kind)
        .containsExactly("PyTorchJob", "TFJob", "XGBoostJob");
    TrainingKind xgb = TrainingKinds.named("XGBoostJob").orElseThrow();
    assertThat(List.of(xgb.plural(), xgb.replicaSpecsField(), xgb.containerName(),
        xgb.portName(), String.valueOf(xgb.defaultPort()), xgb.defaultRestartPolicy()))
        .containsExactly("xgboostjobs", "xgbReplicaSpecs", XGBoostJobDeployer.CONTAINER,
            XGBoostJobDeployer.PORT_NAME, String.valueOf(XGBoostJobDeployer.PORT), "Never");
    TrainingKind torch = TrainingKinds.named("PyTorchJob").orElseThrow();
    assertThat(List.of(torch.containerName(), torch.portName(), torch.defaultPort()))
        .containsExactly(PyTorchJobDeployer.CONTAINER, PyTorchJobDeployer.PORT_NAME,
            PyTorchJobDeployer.PORT);
    TrainingKind tf = TrainingKinds.named("TFJob").orElseThrow();
    assertThat(List.of(tf.containerName(), tf.portName(), tf.defaultPort()))
        .containsExactly(TfJobDeployer.CONTAINER, TfJobDeployer.PORT_NAME, TfJobDeployer.PORT);
    assertThat(TrainingKinds.named("MPIJob")).isEmpty();
  }

  @Test
  void onAClusterAnXgboostJobNamesThePodsAndTheirDeclaredPorts() {
    ReplicaTopology topology = new ReplicaTopology("iris", "ml", List.of(
        new Group("Master", 1, 9991), new Group("Worker", 2, 9992)),
        ReplicaTopology.Network.cluster());

    Map<String, String> env = new XGBoostJobType().injectedEnv(NO_SPEC, topology,
        new Replica("Worker", 1));

    assertThat(env).containsExactly(Map.entry("MASTER_PORT", "9991"),
        Map.entry("MASTER_ADDR", "iris-master-0"), Map.entry("WORLD_SIZE", "3"),
        Map.entry("RANK", "2"), Map.entry("PYTHONUNBUFFERED", "0"),
        Map.entry("WORKER_PORT", "9992"),
        Map.entry("WORKER_ADDRS", "iris-worker-0,iris-worker-1"));
  }

  @Test
  void onAClusterTfConfigQualifiesTheServiceHosts() {
    ReplicaTopology topology = new ReplicaTopology("dist", "ml", List.of(
        new Group("Chief", 1, 2222), new Group("Worker", 1, 2222)),
        ReplicaTopology.Network.cluster());

    assertThat(new TfJobType().injectedEnv(NO_SPEC, topology, new Replica("Chief", 0)))
        .containsExactly(Map.entry("TF_CONFIG", "{\"cluster\":{\"chief\":"
            + "[\"dist-chief-0.ml.svc:2222\"],\"worker\":[\"dist-worker-0.ml.svc:2222\"]},"
            + "\"task\":{\"type\":\"chief\",\"index\":0},\"environment\":\"cloud\"}"));
  }

  @Test
  void anXgboostJobFollowsItsMasterAndIgnoresItsWorkers() {
    ReplicaTopology topology = new ReplicaTopology("x", "ml", List.of(
        new Group("Master", 1, 9999), new Group("Worker", 2, 9999)),
        ReplicaTopology.Network.cluster());
    XGBoostJobType kind = new XGBoostJobType();

    assertThat(kind.succeeded(NO_SPEC, topology, Set.of(new Replica("Worker", 0),
        new Replica("Worker", 1))::contains)).isFalse();
    assertThat(kind.succeeded(NO_SPEC, topology, Set.of(new Replica("Master", 0))::contains))
        .isTrue();
  }
}

package dev.fairing4j.deployer.trainer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.trainer.TrainerApi;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The pods and {@code PET_*} environment a torch TrainJob gets, as a local backend will imitate
 * them (CONTRACT.md (b), (c)); the cluster suite checks the same values against the real
 * controller. Also the shapes: v2.3's render converted to v2.0's is the v2.0 render.
 */
class TrainerTopologyTest {
  @Test
  void eachNodeGetsItsRankAndTheFirstNodeAsMaster() {
    Map<String, Object> job = Fixtures.trainingObject(Deployers.trainJob("mnist").numNodes(3)
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image())));

    List<TrainerTopology.Node> nodes = TrainerTopology.torchNodes(job);

    assertThat(nodes).extracting(TrainerTopology.Node::hostname)
        .containsExactly("mnist-node-0-0", "mnist-node-0-1", "mnist-node-0-2");
    assertThat(nodes.get(2).env()).containsExactly(Map.entry("PET_NNODES", "3"),
        Map.entry("PET_NPROC_PER_NODE", "1"), Map.entry("PET_NODE_RANK", "2"),
        Map.entry("PET_MASTER_ADDR", "mnist-node-0-0.mnist"),
        Map.entry("PET_MASTER_PORT", "29500"));
  }

  @Test
  void processesFollowTheTorchPluginWhenTheJobDoesNotSay() {
    assertThat(TrainerTopology.processesPerNode(Map.of("spec", Map.of("trainer", Map.of(
        "resourcesPerNode", Map.of("limits", Map.of("nvidia.com/gpu", "2"))))))).isEqualTo("auto");
    assertThat(TrainerTopology.processesPerNode(Map.of("spec", Map.of("trainer", Map.of(
        "resourcesPerNode", Map.of("requests", Map.of("cpu", "1500m"))))))).isEqualTo("2");
    assertThat(TrainerTopology.processesPerNode(Map.of("spec", Map.of("trainer", Map.of()))))
        .isEqualTo("1");
    assertThat(TrainerTopology.processesPerNode(Map.of("spec", Map.of("trainer", Map.of(
        "numProcPerNode", 4))))).isEqualTo("4");
  }

  @Test
  void theV20ShapeOfAV23RenderIsTheV20Render() {
    var deployer = Deployers.trainJob("mnist").numNodes(2).label("team", "a")
        .mutate(Mutators.pvc("data", "/data")).mutate(Mutators.nodeSelector("pool", "cpu"));
    Map<String,
        Object> v23 = Fixtures.trainingObject(deployer.asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image())));
    Map<String, Object> v20 = Fixtures.trainingObject(deployer.trainerApi(TrainerApi.V2_0)
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image())));

    assertThat(TrainerDialect.shapeOf(v23)).contains(TrainerApi.V2_3);
    assertThat(TrainerDialect.shapeOf(v20)).contains(TrainerApi.V2_0);
    assertThat(TrainerDialect.toV20(v23)).isEqualTo(v20);
    assertThat(TrainerDialect.shapeOf(Map.of("spec", Map.of("trainer", Map.of())))).isEmpty();
  }
}

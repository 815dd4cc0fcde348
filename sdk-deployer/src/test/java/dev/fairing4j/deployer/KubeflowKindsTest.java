package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.kubeflow.SuccessPolicy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** PyTorchJob, TFJob and XGBoostJob specifics: replica maps, policies, elastic training. */
class KubeflowKindsTest {
  private static final CrdSchemaValidator VALIDATOR = CrdSchemaValidator.load();

  @Test
  void aPyTorchJobAlwaysHasExactlyOneMasterBeforeItsWorkers() {
    Map<String, Object> object = render(Deployers.pyTorchJob("mnist").workers(2));

    Map<String, Map<String, Object>> replicas = Fixtures.at(object, "spec",
        "pytorchReplicaSpecs");
    assertThat(replicas.keySet()).containsExactly("Master", "Worker");
    assertThat(replicas.get("Master")).containsEntry("replicas", 1)
        .containsEntry("restartPolicy", "OnFailure");
    assertThat(replicas.get("Worker")).containsEntry("replicas", 2);
    assertThat(Fixtures.<Map<String, Object>>at(render(Deployers.pyTorchJob("solo")), "spec",
        "pytorchReplicaSpecs")).containsOnlyKeys("Master");
  }

  @Test
  void anXgboostJobHasOneMasterAndItsWorkersEachWithTheOperatorsContainerAndPort() {
    // OnFailure by default, so a Worker that starts before the Master's tracker is reachable
    // restarts and joins; one replica type can still differ.
    Map<String, Object> object = render(Deployers.xgboostJob("iris").workers(2)
        .restartPolicy(ReplicaType.MASTER, RestartPolicy.NEVER));

    assertThat(object).containsEntry("apiVersion", "kubeflow.org/v1")
        .containsEntry("kind", "XGBoostJob");
    Map<String, Map<String, Object>> replicas = Fixtures.at(object, "spec", "xgbReplicaSpecs");
    assertThat(replicas.keySet()).containsExactly("Master", "Worker");
    assertThat(replicas.get("Master")).containsEntry("replicas", 1)
        .containsEntry("restartPolicy", "Never");
    assertThat(replicas.get("Worker")).containsEntry("replicas", 2)
        .containsEntry("restartPolicy", "OnFailure");
    List<Map<String, Object>> containers = Fixtures.at(object, "spec", "xgbReplicaSpecs",
        "Worker", "template", "spec", "containers");
    assertThat(containers.get(0)).containsEntry("name", "xgboost");
    assertThat(containers.get(0).get("ports")).isEqualTo(List.of(Map.of("name",
        "xgboostjob-port", "containerPort", 9999)));
    assertThatThrownBy(() -> Deployers.xgboostJob("iris").restartPolicy(ReplicaType.CHIEF,
        RestartPolicy.NEVER)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("an XGBoostJob has no");
  }

  @Test
  void restartPoliciesCanDifferPerReplicaType() {
    Map<String, Object> object = render(Deployers.pyTorchJob("mnist").workers(1)
        .restartPolicy(RestartPolicy.EXIT_CODE)
        .restartPolicy(ReplicaType.MASTER, RestartPolicy.NEVER));

    assertThat(Fixtures.<Object>at(object, "spec", "pytorchReplicaSpecs", "Master",
        "restartPolicy")).isEqualTo("Never");
    assertThat(Fixtures.<Object>at(object, "spec", "pytorchReplicaSpecs", "Worker",
        "restartPolicy")).isEqualTo("ExitCode");
  }

  @Test
  void elasticTrainingWritesItsPolicyAndKeepsNprocPerNodeAString() {
    Map<String, Object> object = render(Deployers.pyTorchJob("mnist").workers(2).elastic(2, 5)
        .nprocPerNode("gpu"));

    assertThat(Fixtures.<Map<String, Object>>at(object, "spec", "elasticPolicy")).isEqualTo(
        Map.of("minReplicas", 2, "maxReplicas", 5, "rdzvBackend", "c10d"));
    assertThat(Fixtures.<Object>at(object, "spec", "nprocPerNode")).isEqualTo("gpu");
  }

  @Test
  void anElasticJobOfWorkersOnlyIsWrittenAsUpstreamsElasticExamplesWriteIt() {
    Map<String, Object> object = render(Deployers.pyTorchJob("echo").withoutMaster().workers(2)
        .elastic(1, 2, 100));

    assertThat(Fixtures.<Map<String, Object>>at(object, "spec", "pytorchReplicaSpecs"))
        .containsOnlyKeys("Worker");
    assertThat(Fixtures.<Map<String, Object>>at(object, "spec", "elasticPolicy")).isEqualTo(
        Map.of("minReplicas", 1, "maxReplicas", 2, "rdzvBackend", "c10d", "maxRestarts", 100));
    assertThat(Deployers.pyTorchJob("echo").withoutMaster().workers(2).toString())
        .contains("master=0, workers=2");
    assertThatThrownBy(() -> render(Deployers.pyTorchJob("none").withoutMaster()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("workers")
        .hasMessageContaining("without a Master");
    assertThatThrownBy(() -> Deployers.pyTorchJob("x").elastic(1, 2, -1))
        .hasMessageContaining("elastic maxRestarts");
  }

  @Test
  void withoutNprocPerNodeThePyTorchJobRunsOneProcessPerRequestedGpuElseOne() {
    // The operator's "auto" would let torchrun start one process per core, a world unlike the
    // pods' WORLD_SIZE; the manifest states a number instead.
    assertThat(Fixtures.<Object>at(render(Deployers.pyTorchJob("cpu").workers(1)), "spec",
        "nprocPerNode")).isEqualTo("1");
    assertThat(Fixtures.<Object>at(render(Deployers.pyTorchJob("gpu").workers(1)
        .mutate(Mutators.gpus(2))), "spec", "nprocPerNode")).isEqualTo("2");
    assertThat(Fixtures.<Object>at(render(Deployers.pyTorchJob("asked").workers(1)
        .mutate(Mutators.gpus(2)).nprocPerNode("auto")), "spec", "nprocPerNode"))
        .isEqualTo("auto");
  }

  @Test
  void replicasWithDifferentGpuCountsNeedAnExplicitNprocPerNode() {
    PyTorchJobDeployer mixed = Deployers.pyTorchJob("mixed").workers(1)
        .mutate(Mutators.gpus(1), ReplicaType.WORKER);

    assertThatThrownBy(() -> render(mixed)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("nprocPerNode").hasMessageContaining("[0, 1]")
        .hasMessageContaining("set nprocPerNode");
    assertThat(Fixtures.<Object>at(render(mixed.nprocPerNode("1")), "spec", "nprocPerNode")).isEqualTo("1");
  }

  @Test
  void aTfJobListsItsReplicaTypesInRoleOrderWithRestartNeverByDefault() {
    Map<String, Object> object = render(Deployers.tfJob("tf").evaluator(1).workers(2).ps(1)
        .chief(1).successPolicy(SuccessPolicy.ALL_WORKERS));

    Map<String, Map<String, Object>> replicas = Fixtures.at(object, "spec", "tfReplicaSpecs");
    assertThat(replicas.keySet()).containsExactly("Chief", "PS", "Worker", "Evaluator");
    assertThat(replicas.values()).allSatisfy(replica ->
        assertThat(replica).containsEntry("restartPolicy", "Never"));
    assertThat(Fixtures.<Object>at(object, "spec", "successPolicy")).isEqualTo("AllWorkers");
    assertThat(Fixtures.<Map<String, Object>>at(render(Deployers.tfJob("tf")), "spec"))
        .doesNotContainKey("successPolicy");
  }

  @Test
  void aMutatorTargetedAtSeveralTypesReachesOnlyThose() {
    Map<String, Object> object = render(Deployers.tfJob("tf").chief(1).ps(1).workers(1)
        .evaluator(1).env("ROLE_TUNED", "1", ReplicaType.CHIEF, ReplicaType.EVALUATOR));

    for (String type : List.of("Chief", "PS", "Worker", "Evaluator")) {
      Map<String, Object> container = Manifests.container(Manifests.podTemplate(object, type),
          "tensorflow");
      boolean targeted = type.equals("Chief") || type.equals("Evaluator");
      assertThat(Manifests.env(container, "ROLE_TUNED") != null).as(type).isEqualTo(targeted);
    }
  }

  private static Map<String, Object> render(JobDeployer<?> deployer) {
    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));
    VALIDATOR.assertAllValid(yaml);
    return Fixtures.trainingObject(yaml);
  }
}

package dev.fairing4j.deployer.local.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.local.Manifests;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operator's injected environment, variable by variable, against CONTRACT.md. */
class OperatorEnvTest {
  private static final List<String> CMD = List.of("python", "train.py");

  @Test
  void pyTorchJobWithMasterAndTwoWorkers() {
    JobPlan plan = ManifestReader.read(Manifests.pyTorchJob("mnist", 2, CMD, "OnFailure",
        Map.of()));
    JobPorts ports = JobPorts.allocate(plan);
    int masterPort = ports.local("mnist-master-0", 23456).orElseThrow();

    Map<String, Map<String, String>> envs = new LinkedHashMap<>();
    plan.replicas().forEach(id -> envs.put(id.shortName(),
        OperatorEnv.of(plan, id, ports, false)));

    assertThat(envs.keySet()).containsExactly("master-0", "worker-0", "worker-1");
    Map<String, String> rank = Map.of("master-0", "0", "worker-0", "1", "worker-1", "2");
    envs.forEach((replica, env) -> assertThat(env).as(replica).containsExactly(
        Map.entry("PYTHONUNBUFFERED", "1"),
        Map.entry("PET_NPROC_PER_NODE", "auto"),
        Map.entry("PET_NNODES", "3"),
        Map.entry("MASTER_ADDR", "127.0.0.1"),
        Map.entry("PET_MASTER_ADDR", "127.0.0.1"),
        Map.entry("MASTER_PORT", String.valueOf(masterPort)),
        Map.entry("PET_MASTER_PORT", String.valueOf(masterPort)),
        Map.entry("WORLD_SIZE", "3"),
        Map.entry("RANK", rank.get(replica)),
        Map.entry("PET_NODE_RANK", rank.get(replica))));
    assertThat(masterPort).isNotEqualTo(23456);
  }

  @Test
  void numericNprocPerNodeMultipliesTheWorldSize() {
    JobPlan plan = ManifestReader.read(Manifests.pyTorchJob("mnist", 1,
        Manifests.container("pytorch", CMD, Map.of(), 23456, "pytorchjob-port"), "OnFailure",
        Map.of(), List.of(), "2"));
    Map<String, String> env = OperatorEnv.of(plan, plan.replicas().get(1),
        JobPorts.allocate(plan), false);

    assertThat(env).containsEntry("PET_NPROC_PER_NODE", "2").containsEntry("WORLD_SIZE", "4")
        .containsEntry("RANK", "1").containsEntry("PET_NNODES", "2");
  }

  @Test
  void tfConfigListsSortedTypesWithLoopbackAddresses() {
    JobPlan plan = ManifestReader.read(Manifests.tfJob("dist", 2, CMD));
    JobPorts ports = JobPorts.allocate(plan);
    String chief = "127.0.0.1:" + ports.local("dist-chief-0", 2222).orElseThrow();
    String ps = "127.0.0.1:" + ports.local("dist-ps-0", 2222).orElseThrow();
    String w0 = "127.0.0.1:" + ports.local("dist-worker-0", 2222).orElseThrow();
    String w1 = "127.0.0.1:" + ports.local("dist-worker-1", 2222).orElseThrow();
    ReplicaId worker1 = plan.replicas().get(3);

    Map<String, String> env = OperatorEnv.of(plan, worker1, ports, false);

    assertThat(worker1.shortName()).isEqualTo("worker-1");
    assertThat(env).containsOnlyKeys("TF_CONFIG");
    assertThat(env.get("TF_CONFIG")).isEqualTo("{\"cluster\":{\"chief\":[\"" + chief
        + "\"],\"ps\":[\"" + ps + "\"],\"worker\":[\"" + w0 + "\",\"" + w1 + "\"]},"
        + "\"task\":{\"type\":\"worker\",\"index\":1},\"environment\":\"cloud\"}");
    assertThat(List.of(chief, ps, w0, w1)).doesNotHaveDuplicates();
  }

  @Test
  void aSingleReplicaTfJobGetsNoTfConfig() {
    JobPlan plan = ManifestReader.read(new dev.fairing4j.deployer.job.internal.RenderedJob("TFJob",
        "solo", "default", List.of(Map.of("kind", "TFJob", "metadata", Map.of("name", "solo"),
            "spec", Map.of("tfReplicaSpecs", Map.of("Worker", Manifests.replicaSpec(1, "Never",
                Manifests.container("tensorflow", CMD, Map.of(), 2222, "tfjob-port"),
                List.of())))))));

    assertThat(OperatorEnv.of(plan, plan.replicas().get(0), JobPorts.allocate(plan), false))
        .isEmpty();
  }

  @Test
  void indexedJobGetsItsCompletionIndex() {
    JobPlan plan = ManifestReader.read(Manifests.indexedJob("ix", 3, CMD));

    assertThat(OperatorEnv.of(plan, plan.replicas().get(2), JobPorts.allocate(plan), false))
        .containsExactly(Map.entry("JOB_COMPLETION_INDEX", "2"));
    assertThat(plan.replicas()).extracting(ReplicaId::podName)
        .containsExactly("ix-0", "ix-1", "ix-2");
  }

  @Test
  void elasticJobsGetTheRendezvousVariables() {
    Map<String, Object> replicaSpecs = Map.of("Worker", Manifests.replicaSpec(2, "OnFailure",
        Manifests.container("pytorch", CMD, Map.of(), 23456, "pytorchjob-port"), List.of()));
    Map<String, Object> spec = Map.of("pytorchReplicaSpecs", replicaSpecs, "elasticPolicy",
        Map.of("minReplicas", 1, "maxReplicas", 3, "maxRestarts", 5, "rdzvId", "run-1"));
    JobPlan plan = ManifestReader.read(new dev.fairing4j.deployer.job.internal.RenderedJob(
        "PyTorchJob", "el", "default", List.of(Map.of("kind", "PyTorchJob", "metadata",
            Map.of("name", "el"), "spec", spec))));
    JobPorts ports = JobPorts.allocate(plan);

    Map<String, String> env = OperatorEnv.of(plan, plan.replicas().get(1), ports, false);

    assertThat(env).containsEntry("PET_NNODES", "1:3")
        .containsEntry("PET_RDZV_ENDPOINT", "127.0.0.1:"
            + ports.local("el-worker-0", 23456).orElseThrow())
        .containsEntry("PET_RDZV_BACKEND", "c10d").containsEntry("PET_MAX_RESTARTS", "5")
        .containsEntry("PET_RDZV_ID", "run-1").doesNotContainKeys("MASTER_ADDR", "RANK");
  }

  @Test
  void anElasticJobsRendezvousNamesWorkerZeroWhenPodHostsResolve() {
    Map<String, Object> spec = Map.of("pytorchReplicaSpecs", Map.of("Worker",
        Manifests.replicaSpec(2, "OnFailure", Manifests.container("pytorch", CMD, Map.of(),
            23456, "pytorchjob-port"), List.of())), "elasticPolicy",
        Map.of("minReplicas", 2, "maxReplicas", 2));
    JobPlan plan = ManifestReader.read(new dev.fairing4j.deployer.job.internal.RenderedJob(
        "PyTorchJob", "el", "default", List.of(Map.of("kind", "PyTorchJob", "metadata",
            Map.of("name", "el"), "spec", spec))));
    JobPorts ports = JobPorts.allocate(plan);

    Map<String, String> env = OperatorEnv.of(plan, plan.replicas().get(1), ports, true);

    assertThat(env).containsEntry("PET_RDZV_ENDPOINT", "el-worker-0:"
        + ports.local("el-worker-0", 23456).orElseThrow());
  }

  @Test
  void xgboostJobGetsTheOperatorsVariablesInItsOrder() {
    JobPlan plan = ManifestReader.read(xgboostJob("xgb", 2));
    JobPorts ports = JobPorts.allocate(plan);
    String masterPort = String.valueOf(ports.local("xgb-master-0", 9999).orElseThrow());
    String workerPort = String.valueOf(ports.local("xgb-worker-0", 9999).orElseThrow());

    Map<String, Map<String, String>> envs = new LinkedHashMap<>();
    plan.replicas().forEach(id -> envs.put(id.shortName(),
        OperatorEnv.of(plan, id, ports, false)));

    assertThat(envs.keySet()).containsExactly("master-0", "worker-0", "worker-1");
    Map<String, String> rank = Map.of("master-0", "0", "worker-0", "1", "worker-1", "2");
    envs.forEach((replica, env) -> assertThat(env).as(replica).containsExactly(
        Map.entry("MASTER_PORT", masterPort),
        Map.entry("MASTER_ADDR", "127.0.0.1"),
        Map.entry("WORLD_SIZE", "3"),
        Map.entry("RANK", rank.get(replica)),
        Map.entry("PYTHONUNBUFFERED", "0"),
        Map.entry("WORKER_PORT", workerPort),
        Map.entry("WORKER_ADDRS", "127.0.0.1,127.0.0.1")));
    assertThat(masterPort).isNotEqualTo("9999").isNotEqualTo(workerPort);
  }

  @Test
  void aMasterOnlyXgboostJobGetsNoWorkerVariables() {
    JobPlan plan = ManifestReader.read(xgboostJob("solo", 0));

    assertThat(OperatorEnv.of(plan, plan.replicas().get(0), JobPorts.allocate(plan), false))
        .containsOnlyKeys("MASTER_PORT", "MASTER_ADDR", "WORLD_SIZE", "RANK", "PYTHONUNBUFFERED")
        .containsEntry("WORLD_SIZE", "1").containsEntry("RANK", "0");
  }

  @Test
  void anXgboostJobWithoutAMasterIsRefusedAsTheWebhookRefusesIt() {
    Map<String, Object> worker = Manifests.replicaSpec(2, "Never", Manifests.container("xgboost",
        CMD, Map.of(), 9999, "xgboostjob-port"), List.of());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ManifestReader.read(
        new dev.fairing4j.deployer.job.internal.RenderedJob("XGBoostJob", "nomaster", "default",
            List.of(Map.of("kind", "XGBoostJob", "metadata", Map.of("name", "nomaster"),
                "spec", Map.of("xgbReplicaSpecs", Map.of("Worker", worker)))))))
        .isInstanceOf(dev.fairing4j.core.InvalidInputException.class)
        .hasMessageContaining("spec.xgbReplicaSpecs.Master");
  }

  static dev.fairing4j.deployer.job.internal.RenderedJob xgboostJob(String name, int workers) {
    Map<String, Object> container = Manifests.container("xgboost", CMD, Map.of(), 9999,
        "xgboostjob-port");
    Map<String, Object> specs = new LinkedHashMap<>();
    specs.put("Master", Manifests.replicaSpec(1, "Never", container, List.of()));
    if (workers > 0) {
      specs.put("Worker", Manifests.replicaSpec(workers, "Never", container, List.of()));
    }
    return new dev.fairing4j.deployer.job.internal.RenderedJob("XGBoostJob", name, "default",
        List.of(Map.of("kind", "XGBoostJob", "metadata", Map.of("name", name), "spec",
            Map.of("xgbReplicaSpecs", specs))));
  }
}

package dev.fairing4j.deployer.local.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.local.Manifests;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading rendered manifests: the operator's defaults and the errors that name the field. */
class ManifestReaderTest {
  private static final List<String> CMD = List.of("python", "train.py");

  @Test
  void appliesTheOperatorsDefaults() {
    Map<String, Object> master = new java.util.LinkedHashMap<>(Map.of("template", Map.of("spec",
        Map.of("containers", List.of(Manifests.container("pytorch", CMD, Map.of(), 0, ""))))));
    JobPlan plan = ManifestReader.read(job("PyTorchJob", "d",
        Map.of("pytorchReplicaSpecs", Map.of("Master", master))));

    assertThat(plan.groups()).singleElement().satisfies(g -> {
      assertThat(g.replicas()).isEqualTo(1);
      assertThat(g.restartPolicy()).isEqualTo(RestartPolicy.ON_FAILURE);
    });
    assertThat(plan.backoffLimit()).isEmpty();
    assertThat(JobPorts.operatorPort(plan, plan.groups().get(0))).isEqualTo(23456);
  }

  @Test
  void readsABatchJob() {
    JobPlan plan = ManifestReader.read(Manifests.indexedJob("ix", 3, CMD));

    assertThat(plan.kind()).isEqualTo(LocalKind.BATCH);
    assertThat(plan.batch()).contains(new JobPlan.Batch(3, 3, true));
    assertThat(plan.backoffLimit()).contains(0);
    assertThat(plan.replicas()).extracting(ReplicaId::shortName)
        .containsExactly("pod-0", "pod-1", "pod-2");
  }

  @Test
  void readsVolumesMountsAndGpus() {
    Map<String, Object> container = Manifests.container("pytorch", CMD, Map.of(), 23456,
        "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("models", "/opt/mnist/models")));
    container.put("resources", Map.of("limits", Map.of("nvidia.com/gpu", "2")));
    JobPlan plan = ManifestReader.read(Manifests.pyTorchJob("m", 0, container, "ExitCode",
        Map.of("backoffLimit", 4, "activeDeadlineSeconds", 600),
        List.of(Manifests.pvcVolume("models", "claim")), null));

    JobPlan.Pod pod = plan.groups().get(0).pod();
    assertThat(pod.container().gpus()).isEqualTo(2);
    assertThat(pod.container().mounts()).containsExactly(
        new JobPlan.Mount("models", "/opt/mnist/models", false, ""));
    assertThat(pod.volume("models").orElseThrow().source())
        .containsEntry("persistentVolumeClaim", Map.of("claimName", "claim"));
    assertThat(plan.backoffLimit()).contains(4);
    assertThat(plan.activeDeadlineSeconds()).contains(600L);
    assertThat(plan.groups().get(0).restartPolicy()).isEqualTo(RestartPolicy.EXIT_CODE);
  }

  @Test
  void refusesAContainerWithTheWrongName() {
    RenderedJob job = Manifests.pyTorchJob("m", 0, Manifests.container("main", CMD, Map.of(),
        0, ""), "Never", Map.of(), List.of(), null);

    assertThatThrownBy(() -> ManifestReader.read(job))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("spec.pytorchReplicaSpecs.Master.template.spec"
              + ".containers");
          assertThat(e.getMessage()).contains("no container named 'pytorch'", "[main]");
        });
  }

  @Test
  void refusesKindsItCannotRun() {
    assertThatThrownBy(() -> ManifestReader.read(job("MPIJob", "m", Map.of())))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("cannot run a MPIJob");
  }

  @Test
  void refusesTwoMasters() {
    Map<String, Object> master = Manifests.replicaSpec(2, "Never",
        Manifests.container("pytorch", CMD, Map.of(), 0, ""), List.of());
    assertThatThrownBy(() -> ManifestReader.read(job("PyTorchJob", "m",
        Map.of("pytorchReplicaSpecs", Map.of("Master", master)))))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("exactly 1");
  }

  @Test
  void refusesAnUnknownRestartPolicy() {
    assertThatThrownBy(() -> ManifestReader.read(Manifests.pyTorchJob("m", 0, CMD, "Sometimes",
        Map.of()))).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'Sometimes' is not a restart policy");
  }

  @Test
  void readsATrainJobAsTheJobSetsNodePodsWithTheRuntimePatchsVolumes() {
    Map<String, Object> podSpec = Map.of("volumes",
        List.of(Manifests.pvcVolume("data", "training-data")), "containers",
        List.of(Map.of("name", "node", "volumeMounts", List.of(Manifests.mount("data", "/data")))));
    Map<String, Object> patch = Map.of("manager", "fairing4j.dev/deployer", "trainingRuntimeSpec",
        Map.of("template", Map.of("spec", Map.of("replicatedJobs", List.of(Map.of("name",
            "node", "template", Map.of("spec", Map.of("template", Map.of("metadata",
                Map.of("labels", Map.of("team", "a")), "spec", podSpec)))))))));
    JobPlan plan = ManifestReader.read(trainJob("tj", Map.of("runtimeRef",
        Map.of("name", "torch-distributed"), "trainer", Map.of("numNodes", 3,
            "numProcPerNode", 2, "command", List.of("torchrun", "train.py")),
        "runtimePatches", List.of(patch), "activeDeadlineSeconds", 60)));

    assertThat(plan.kind()).isEqualTo(LocalKind.TRAINJOB);
    assertThat(plan.replicas()).extracting(ReplicaId::podName)
        .containsExactly("tj-node-0-0", "tj-node-0-1", "tj-node-0-2");
    assertThat(plan.replicas()).extracting(ReplicaId::shortName)
        .containsExactly("node-0", "node-1", "node-2");
    JobPlan.Group group = plan.groups().get(0);
    assertThat(group.restartPolicy()).isEqualTo(RestartPolicy.ON_FAILURE);
    assertThat(group.pod().container().command()).containsExactly("torchrun", "train.py");
    assertThat(group.pod().container().mounts()).containsExactly(
        new JobPlan.Mount("data", "/data", false, ""));
    assertThat(group.pod().volume("data")).isPresent();
    assertThat(group.pod().labels()).containsEntry("team", "a");
    assertThat(plan.backoffLimit()).contains(6);
    assertThat(plan.activeDeadlineSeconds()).contains(60L);
    assertThat(JobPorts.operatorPort(plan, group)).isEqualTo(29500);
  }

  @Test
  void readsTrainerV20sPodSpecOverrides() {
    Map<String, Object> override = Map.of("targetJobs", List.of(Map.of("name", "node")),
        "volumes", List.of(Manifests.pvcVolume("data", "training-data")), "containers",
        List.of(Map.of("name", "node", "volumeMounts", List.of(Manifests.mount("data", "/d")))));
    JobPlan plan = ManifestReader.read(trainJob("tj", Map.of("runtimeRef",
        Map.of("name", "torch-distributed"), "trainer", Map.of("numNodes", 1),
        "podSpecOverrides", List.of(override))));

    assertThat(plan.groups().get(0).pod().container().mounts()).extracting(JobPlan.Mount::mountPath)
        .containsExactly("/d");
  }

  @Test
  void refusesWhatOnlyAClusterRunsNamingTheField() {
    assertThatThrownBy(() -> ManifestReader.read(trainJob("tj", Map.of("runtimeRef",
        Map.of("name", "deepspeed-distributed")))))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("runtime"))
        .hasMessageContaining("torch-distributed");
    assertThatThrownBy(() -> ManifestReader.read(trainJob("tj", Map.of("runtimeRef",
        Map.of("name", "torch-distributed"), "initializer",
        Map.of("dataset", Map.of("storageUri", "hf://x"))))))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("initializer"));
  }

  private static RenderedJob trainJob(String name, Map<String, Object> spec) {
    return new RenderedJob("TrainJob", name, "default", List.of(Map.of("apiVersion",
        "trainer.kubeflow.org/v1alpha1", "kind", "TrainJob", "metadata", Map.of("name", name),
        "spec", spec)));
  }

  private static RenderedJob job(String kind, String name, Map<String, Object> spec) {
    return new RenderedJob(kind, name, "default", List.of(Map.of("apiVersion",
        "kubeflow.org/v1", "kind", kind, "metadata", Map.of("name", name), "spec", spec)));
  }
}

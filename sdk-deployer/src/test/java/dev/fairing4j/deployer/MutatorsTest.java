package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.PodTemplate;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.internal.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What each mutator does to a pod template, and that doing it twice is the same as once. */
class MutatorsTest {
  private static final Map<String, Object> TERM = Map.of("topologyKey", "kubernetes.io/hostname",
      "labelSelector", Map.of());
  private static final Map<String, Object> ANTI_AFFINITY = Map.of("podAntiAffinity", Map.of(
      "preferredDuringSchedulingIgnoredDuringExecution",
      List.of(Map.of("weight", 100, "podAffinityTerm", TERM))));

  static Stream<Arguments> everyMutator() {
    return Stream.of(
        Arguments.of("resources", Mutators.resources("2", "4Gi")),
        Arguments.of("gpus", Mutators.gpus(4)),
        Arguments.of("pvc", Mutators.pvc("training-data", "/data").readOnly().subPath("a/b")),
        Arguments.of("secretVolume", Mutators.secretVolume("creds", "/etc/creds")),
        Arguments.of("configMapVolume", Mutators.configMapVolume("conf", "/etc/conf")),
        Arguments.of("emptyDir", Mutators.emptyDir("scratch", "/scratch")),
        Arguments.of("hostPath", Mutators.hostPath("/mnt/data", "/data")),
        Arguments.of("sharedMemory", Mutators.sharedMemory("2Gi")),
        Arguments.of("envFromSecret", Mutators.envFromSecret("TOKEN", "hf", "token")),
        Arguments.of("nodeSelector", Mutators.nodeSelector("gpu", "a100")),
        Arguments.of("toleration", Mutators.toleration("dedicated", "ml", "NoSchedule")),
        Arguments.of("tolerationExists", Mutators.tolerationExists("nvidia.com/gpu",
            "NoSchedule")),
        Arguments.of("affinity", Mutators.affinity(ANTI_AFFINITY)),
        Arguments.of("imagePullSecrets", Mutators.imagePullSecrets("regcred", "other")),
        Arguments.of("serviceAccount", Mutators.serviceAccount("trainer")),
        Arguments.of("priorityClass", Mutators.priorityClass("high")),
        Arguments.of("labels", Mutators.labels(Map.of("a", "b"))),
        Arguments.of("annotations", Mutators.annotations(Map.of("x/y", "z"))),
        Arguments.of("securityContext", Mutators.securityContext().runAsUser(1000)
            .runAsNonRoot().fsGroup(100).readOnlyRootFilesystem().dropAllCapabilities()),
        Arguments.of("all", Mutators.all(Mutators.envFromSecret("A", "s", "k"), Mutators.gpus(1))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyMutator")
  void applyingTwiceEqualsApplyingOnce(String name, PodMutator mutator) {
    Map<String, Object> once = template();
    mutator.apply(view(once, Optional.of(ReplicaType.WORKER), false));
    Map<String, Object> twice = template();
    mutator.apply(view(twice, Optional.of(ReplicaType.WORKER), false));
    mutator.apply(view(twice, Optional.of(ReplicaType.WORKER), false));

    assertThat(twice).isEqualTo(once).isNotEqualTo(template());
    assertThat(CrdSchemaValidator.load().validatePodTemplate(once)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyMutator")
  void changesTheTrainingContainerByNameNeverTheFirstContainer(String name, PodMutator mutator) {
    Map<String, Object> template = template();
    Map<String, Object> sidecarBefore = Json.copyMap(sidecar(template));

    mutator.apply(view(template, Optional.of(ReplicaType.WORKER), false));

    assertThat(sidecar(template)).isEqualTo(sidecarBefore);
  }

  @Test
  void volumeSourcesKeepOneKeyOrderInEveryJvm() {
    // Map.of's iteration order differs between JVMs, so a dry run printed other bytes each time.
    Map<?, ?> shm = (Map<?, ?>) Mutators.sharedMemory("2Gi").source().get("emptyDir");
    Map<?, ?> host = (Map<?, ?>) Mutators.hostPath("/mnt/data", "/data").source().get("hostPath");
    assertThat(List.<Object>copyOf(shm.keySet())).containsExactly("medium", "sizeLimit");
    assertThat(List.<Object>copyOf(host.keySet())).containsExactly("path", "type");
  }

  @Test
  void resourcesSetRequestsAndLimitsAndKeepEverythingElse() {
    Map<String, Object> template = template();
    PodTemplate view = view(template, Optional.of(ReplicaType.WORKER), false);
    view.putResource("limits", "example.com/fpga", "1")
        .putResource("requests", "ephemeral-storage", "10Gi");

    Mutators.resources("2", "4Gi").apply(view);
    Mutators.gpus(1).apply(view);

    Map<String, Object> resources = Fixtures.at(view.container(), "resources");
    assertThat(resources).isEqualTo(Map.of(
        "requests", Map.of("ephemeral-storage", "10Gi", "cpu", "2", "memory", "4Gi"),
        "limits", Map.of("example.com/fpga", "1", "cpu", "2", "memory", "4Gi",
            "nvidia.com/gpu", "1")));
  }

  @Test
  void gpusCanComeFromAnotherVendor() {
    PodTemplate view = view(template(), Optional.of(ReplicaType.MASTER), false);

    Mutators.gpus(2).amd().apply(view);

    assertThat(Fixtures.<Map<String, Object>>at(view.container(), "resources", "limits"))
        .isEqualTo(Map.of("amd.com/gpu", "2"));
  }

  @Test
  void aTfJobPsGetsCpuAndMemoryButNoGpuUnlessTargeted() {
    String yaml = Deployers.tfJob("tf").chief(1).ps(2).workers(2)
        .mutate(Mutators.resources("2", "8Gi")).mutate(Mutators.gpus(1))
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));
    Map<String, Object> object = Fixtures.trainingObject(yaml);

    Map<String, Object> ps = Manifests.container(Manifests.podTemplate(object, "PS"),
        "tensorflow");
    assertThat(Fixtures.<Map<String, Object>>at(ps, "resources", "limits"))
        .isEqualTo(Map.of("cpu", "2", "memory", "8Gi"));
    for (String type : List.of("Chief", "Worker")) {
      assertThat(Fixtures.<Object>at(Manifests.container(Manifests.podTemplate(object, type),
          "tensorflow"), "resources", "limits", "nvidia.com/gpu")).isEqualTo("1");
    }

    String targeted = Deployers.tfJob("tf").ps(1).workers(1)
        .mutate(Mutators.resources("2", "8Gi"), ReplicaType.PS)
        .mutate(Mutators.gpus(1), ReplicaType.PS)
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));
    Map<String, Object> targetedObject = Fixtures.trainingObject(targeted);
    assertThat(Fixtures.<Object>at(Manifests.container(Manifests.podTemplate(targetedObject,
        "PS"), "tensorflow"), "resources", "limits", "nvidia.com/gpu")).isEqualTo("1");
    assertThat(Fixtures.<Object>at(Manifests.container(Manifests.podTemplate(targetedObject,
        "Worker"), "tensorflow"), "resources")).isNull();
    CrdSchemaValidator.load().assertAllValid(targeted);
  }

  @Test
  void securityContextSplitsPodAndContainerFields() {
    PodTemplate view = view(template(), Optional.empty(), false);

    Mutators.securityContext().runAsUser(1000).runAsGroup(2000).runAsNonRoot().fsGroup(100)
        .readOnlyRootFilesystem().noPrivilegeEscalation().dropAllCapabilities().apply(view);

    assertThat(Fixtures.<Map<String, Object>>at(view.podSpec(), "securityContext"))
        .isEqualTo(Map.of("runAsUser", 1000L, "runAsGroup", 2000L, "runAsNonRoot", true,
            "fsGroup", 100L));
    assertThat(Fixtures.<Map<String, Object>>at(view.container(), "securityContext"))
        .isEqualTo(Map.of("readOnlyRootFilesystem", true, "allowPrivilegeEscalation", false,
            "capabilities", Map.of("drop", List.of("ALL"))));
  }

  @Test
  void envFromSecretKeepsTheValueOutOfTheManifest() {
    PodTemplate view = view(template(), Optional.empty(), false);

    Mutators.envFromSecret("HF_TOKEN", "huggingface", "token").apply(view);

    assertThat(Manifests.env(view.container(), "HF_TOKEN")).isEqualTo(Map.of("name", "HF_TOKEN",
        "valueFrom", Map.of("secretKeyRef", Map.of("name", "huggingface", "key", "token"))));
  }

  @Test
  void aLaterMountAtTheSamePathReplacesTheEarlierOne() {
    PodTemplate view = view(template(), Optional.empty(), false);

    Mutators.pvc("old-claim", "/data").apply(view);
    Mutators.pvc("new-claim", "/data").apply(view);

    assertThat(Fixtures.<List<?>>at(view.container(), "volumeMounts")).hasSize(1);
    assertThat(Fixtures.<Object>at(view.container(), "volumeMounts", 0, "name"))
        .isEqualTo("new-claim");
  }

  @Test
  void longClaimNamesGetAValidVolumeName() {
    String claim = "data." + "x".repeat(40) + "." + "y".repeat(40);

    var mount = Mutators.pvc(claim, "/data");

    assertThat(mount.volumeName()).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9-]+")
        .isNotEqualTo(Mutators.pvc(claim + "2", "/data").volumeName());
  }

  @Test
  void mutatorsShowWhatTheyDo() {
    assertThat(Mutators.resources("2", "4Gi")).hasToString("resources(cpu=2 memory=4Gi)");
    assertThat(Mutators.gpus(1)).hasToString("resources(nvidia.com/gpu=1)");
    assertThat(Mutators.pvc("training-data", "/data").readOnly()).hasToString(
        "volume(training-data persistentVolumeClaim at /data, ro)");
    assertThat(Mutators.envFromSecret("T", "s", "k")).hasToString("env(T from secret s/k)");
  }

  // A pod template with a sidecar before the training container, as a service mesh or a
  // log shipper would leave it.
  @Test
  void mutatorRecordsBuiltByHandRefuseContradictionsAsInvalidInput() {
    assertThatThrownBy(() -> new dev.fairing4j.deployer.mutate.Env("TOKEN", Optional.of("x"),
        Optional.of("secret"), Optional.of("key")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("env TOKEN");
          assertThat(e.fix()).contains("Mutators.envFromSecret");
        });
    assertThatThrownBy(() -> new dev.fairing4j.deployer.mutate.VolumeMount("data",
        Map.of("emptyDir", Map.of(), "hostPath", Map.of("path", "/data")), "/data", false,
        Optional.empty()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("volume data");
          assertThat(e.fix()).contains("Mutators.pvc");
        });
  }

  private static Map<String, Object> template() {
    Map<String, Object> template = Json.map();
    Map<String, Object> spec = Json.child(template, "spec");
    List<Object> containers = new ArrayList<>();
    containers.add(Json.copyMap(Map.of("name", "sidecar", "image", "busybox")));
    containers.add(Json.copyMap(Map.of("name", "pytorch", "image", "registry.example.com/x:1")));
    spec.put("containers", containers);
    return template;
  }

  private static Map<String, Object> sidecar(Map<String, Object> template) {
    return Manifests.container(template, "sidecar");
  }

  private static PodTemplate view(Map<String, Object> template, Optional<ReplicaType> type,
      boolean targeted) {
    return PodTemplate.of("PyTorchJob", type, targeted, "pytorch", template);
  }
}

package dev.fairing4j.deployer.trainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.ReplicaType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TrainJobs rendered for every option, compared byte for byte with
 * {@code src/test/resources/golden/trainjob/*.yaml} (rewrite them with
 * {@code -Dgolden.update=true}, then review the diff) and validated in the JVM against the
 * Trainer v2.3.0 CRD schema, its CEL rules and the webhook's rules (v2.0.1's for the v2.0
 * shape); plus what a TrainJob cannot carry, refused before any request.
 */
class TrainJobTest {
  private static final CrdSchemaValidator V23 = CrdSchemaValidator.load();
  private static final CrdSchemaValidator V20 = CrdSchemaValidator.loadTrainerV20();
  // Ordered, so the golden file does not depend on Map.of's per-JVM iteration order.
  private static final Map<String, Object> AFFINITY = ordered("nodeAffinity", ordered(
      "requiredDuringSchedulingIgnoredDuringExecution", ordered("nodeSelectorTerms",
          List.of(ordered("matchExpressions", List.of(ordered("key", "zone", "operator", "In",
              "values", List.of("a", "b"))))))));
  private static final RegistryCredentials PUSH = new RegistryCredentials(
      "registry.example.com", "ci", Secret.of("s3cr3t-token"));

  private static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> map = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  static TrainJobDeployer everyOption() {
    return Deployers.trainJob("mnist")
        .namespace("team-a")
        .runtime("torch-distributed")
        .numNodes(4)
        .numProcPerNode(2)
        .args("--epochs=3", "--backend=nccl")
        .env("EPOCHS", "3")
        .label("team", "vision")
        .annotation("owner", "alice@example.com")
        .disableIstioSidecar()
        .kueueQueue("gpu-queue")
        .suspend(true)
        .activeDeadlineSeconds(7200)
        .managedBy("kueue.x-k8s.io/multikueue")
        .datasetInitializer(Initializer.of("hf://zalando-datasets/fashion_mnist")
            .env("HF_HUB_ENABLE_HF_TRANSFER", "1").secret("hf-token"))
        .modelInitializer("s3://models/resnet")
        .pullCredentials(PUSH)
        .mutate(Mutators.resources("4", "16Gi")).mutate(Mutators.gpus(2))
        .mutate(Mutators.envFromSecret("WANDB_API_KEY", "wandb", "key"))
        .mutate(Mutators.pvc("training-data", "/data").readOnly())
        .mutate(Mutators.sharedMemory("8Gi"))
        .mutate(Mutators.secretVolume("tls", "/etc/tls"))
        .mutate(Mutators.nodeSelector("gpu", "a100"))
        .mutate(Mutators.tolerationExists("nvidia.com/gpu", "NoSchedule"))
        .mutate(Mutators.affinity(AFFINITY))
        .mutate(Mutators.serviceAccount("trainer"))
        .mutate(Mutators.imagePullSecrets("mirror-creds"))
        .mutate(Mutators.securityContext().runAsUser(1000).fsGroup(100).runAsNonRoot()
            .noPrivilegeEscalation())
        .mutate(Mutators.labels(Map.of("app", "mnist")))
        .mutate(Mutators.annotations(Map.of("prometheus.io/scrape", "true")));
  }

  static Stream<Arguments> goldens() {
    return Stream.of(
        Arguments.of("minimal", Deployers.trainJob("mnist"), V23),
        Arguments.of("every-option", everyOption(), V23),
        Arguments.of("pytorch-simple-2-nodes", Deployers.trainJob("pytorch-simple")
            .namespace("kubeflow").numNodes(2).args("--epochs=1")
            .mutate(Mutators.pvc("fashion-mnist", "/usr/share/datasets/fashion-mnist")
                .readOnly()), V23),
        Arguments.of("namespaced-runtime-own-command", Deployers.trainJob("jax-mnist")
            .namespacedRuntime("jax-team").torchrun(false).numNodes(2)
            .mutate(Mutators.resources("2", "8Gi")), V23),
        Arguments.of("v2.0-shape", Deployers.trainJob("mnist").trainerApi(TrainerApi.V2_0)
            .numNodes(2).label("team", "vision")
            .mutate(Mutators.pvc("training-data", "/data"))
            .mutate(Mutators.nodeSelector("pool", "cpu"))
            .mutate(Mutators.toleration("dedicated", "ml", "NoSchedule"))
            .mutate(Mutators.serviceAccount("trainer"))
            .env("EPOCHS", "1"), V20));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void rendersExactlyTheGoldenFile(String name, TrainJobDeployer deployer,
      CrdSchemaValidator validator) throws IOException {
    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    if (Boolean.getBoolean("golden.update")) {
      Files.writeString(Path.of("src/test/resources/golden/trainjob", name + ".yaml"), yaml);
    }
    assertThat(yaml).isEqualTo(golden(name));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void goldenFileIsAcceptedByTheCrdSchemaItsRulesAndTheWebhook(String name,
      TrainJobDeployer deployer, CrdSchemaValidator validator) throws IOException {
    validator.assertAllValid(golden(name));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void deploySubmitsTheObjectsRenderShows(String name, TrainJobDeployer deployer,
      CrdSchemaValidator validator) {
    var cluster = new Fixtures.CapturingCluster();
    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    deployer.on(cluster).asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
        ProgressListener.NONE);

    // The dry run redacts the pull Secret's password; the training object is the same.
    List<Map<String, Object>> shown = Fixtures.parse(yaml);
    assertThat(cluster.submitted.get(0).objects()).hasSameSizeAs(shown);
    assertThat(Fixtures.parse(dev.fairing4j.deployer.job.internal.Yaml.write(List.of(
        cluster.submitted.get(0).trainingObject())))).containsExactly(shown.get(shown.size() - 1));
    assertThat(cluster.submitted.get(0).kind()).isEqualTo("TrainJob");
    // AUTO may reshape for the cluster; an explicit version is sent as rendered.
    assertThat(cluster.options.get(0).adaptTrainerApi())
        .isEqualTo(!name.equals("v2.0-shape"));
  }

  @Test
  void theTrainerFieldsComeFromTheImageTheContextAndTheMutators() {
    Map<String,
        Object> job = Fixtures.trainingObject(everyOption().asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image())));
    Map<String, Object> trainer = Fixtures.at(job, "spec", "trainer");

    assertThat(trainer.get("image")).isEqualTo(Fixtures.image().reference());
    // torch-distributed: torchrun reads PET_*; it starts the script with python -u itself.
    assertThat(trainer.get("command")).isEqualTo(List.of("torchrun", "/app/mnist.py"));
    assertThat(trainer.get("numNodes")).isEqualTo(4);
    assertThat(trainer.get("numProcPerNode")).isEqualTo(2);
    assertThat(Fixtures.<Map<String, Object>>at(trainer, "resourcesPerNode", "limits"))
        .containsEntry("nvidia.com/gpu", "2").containsEntry("cpu", "4");
    assertThat(Fixtures.<Map<String, Object>>at(job, "metadata", "labels"))
        .containsEntry("kueue.x-k8s.io/queue-name", "gpu-queue");
    Map<String, Object> pod = Fixtures.at(job, "spec", "runtimePatches", 0,
        "trainingRuntimeSpec", "template", "spec", "replicatedJobs", 0, "template", "spec",
        "template");
    assertThat(Fixtures.<Map<String, Object>>at(pod, "metadata", "labels"))
        .containsEntry("app", "mnist").containsEntry("fairing4j.dev/job-name", "mnist")
        .doesNotContainKey("kueue.x-k8s.io/queue-name");
    assertThat(Fixtures.<List<Object>>at(pod, "spec", "imagePullSecrets"))
        .containsExactly(Map.of("name", "mnist-registry"), Map.of("name", "mirror-creds"));
  }

  @Test
  void processesPerNodeDefaultToOnePerGpuElseOne() {
    assertThat(procs(Deployers.trainJob("a"))).isEqualTo(1);
    assertThat(procs(Deployers.trainJob("a").mutate(Mutators.resources("8", "32Gi"))))
        .isEqualTo(1);
    assertThat(procs(Deployers.trainJob("a").mutate(Mutators.gpus(4)))).isEqualTo(4);
    assertThat(procs(Deployers.trainJob("a").mutate(Mutators.gpus(2).amd()))).isEqualTo(2);
    assertThat(procs(Deployers.trainJob("a").mutate(Mutators.gpus(4)).numProcPerNode(1)))
        .isEqualTo(1);
  }

  private static int procs(TrainJobDeployer deployer) {
    return Fixtures.at(Fixtures.trainingObject(deployer.asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image()))), "spec", "trainer", "numProcPerNode");
  }

  @Test
  void torchrunReplacesPythonAfterARequirementsWrapperAndLeavesOwnCommandsAlone() {
    BuildContext wrapped = Fixtures.context().withCommand(List.of("/bin/sh",
        "/app/.fairing4j/bootstrap.sh", "python", "-u", "/app/mnist.py", "--lr=0.1"));
    assertThat(command(Deployers.trainJob("a"), wrapped)).containsExactly("/bin/sh",
        "/app/.fairing4j/bootstrap.sh", "torchrun", "/app/mnist.py", "--lr=0.1");
    BuildContext torchrun = Fixtures.context().withCommand(List.of("torchrun",
        "--nproc_per_node=2", "/app/mnist.py"));
    assertThat(command(Deployers.trainJob("a"), torchrun)).containsExactly("torchrun",
        "--nproc_per_node=2", "/app/mnist.py");
    BuildContext own = Fixtures.context().withCommand(List.of("bash", "/app/run.sh"));
    assertThat(command(Deployers.trainJob("a"), own)).containsExactly("bash", "/app/run.sh");
    assertThat(command(Deployers.trainJob("a").runtime("torchtune-llama3.2-1b"),
        Fixtures.context())).containsExactly("python", "-u", "/app/mnist.py");
    assertThat(command(Deployers.trainJob("a").runtime("my-rt").torchrun(true),
        Fixtures.context())).containsExactly("torchrun", "/app/mnist.py");
    assertThatThrownBy(() -> command(Deployers.trainJob("a").torchrun(true), own))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("torchrun")
        .hasMessageContaining(".torchrun(false)");
  }

  @Test
  void anOwnCommandReplacesThePreprocessorsRunsAsGivenAndTakesTheArgs() {
    TrainJobDeployer own = Deployers.trainJob("a").command("python3", "-m", "mypkg.train")
        .args("--lr=0.1");
    Map<String, Object> trainer = Fixtures.at(Fixtures.trainingObject(own.asDeployer().render(
        Fixtures.context(), Optional.of(Fixtures.image()))), "spec", "trainer");

    assertThat(trainer.get("command")).as("not through torchrun on torch-distributed")
        .isEqualTo(List.of("python3", "-m", "mypkg.train"));
    assertThat(trainer.get("args")).isEqualTo(List.of("--lr=0.1"));
    assertThat(command(Deployers.trainJob("a").command("python", "-u", "/app/x.py")
        .torchrun(true), Fixtures.context())).containsExactly("torchrun", "/app/x.py");
    assertThat(own.toString()).contains("command=[python3, -m, mypkg.train]");
    assertThatThrownBy(() -> Deployers.trainJob("a").command())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("command");
          assertThat(e).hasMessageContaining("is empty");
        });
    assertThatThrownBy(() -> Deployers.trainJob("a").command("python3", " "))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("holds a blank part");
  }

  private static List<String> command(TrainJobDeployer deployer, BuildContext context) {
    return Fixtures.at(Fixtures.trainingObject(deployer.asDeployer().render(context,
        Optional.of(Fixtures.image()))), "spec", "trainer", "command");
  }

  @Test
  void valuesAreImmutableComparableAndShort() {
    TrainJobDeployer base = Deployers.trainJob("mnist");
    TrainJobDeployer two = base.numNodes(2);

    assertThat(base.numNodes()).isEqualTo(1);
    assertThat(two).isNotEqualTo(base).isEqualTo(Deployers.trainJob("mnist").numNodes(2));
    assertThat(two.hashCode()).isEqualTo(Deployers.trainJob("mnist").numNodes(2).hashCode());
    assertThat(base.runtimeName()).isEqualTo("torch-distributed");
    assertThat(everyOption().toString()).isEqualTo("TrainJob[mnist, ns=team-a, mutators=14,"
        + " pull=ci@registry.example.com, runtime=torch-distributed, nodes=4, procs=2,"
        + " dataset=hf://zalando-datasets/fashion_mnist, model=s3://models/resnet]")
        .doesNotContain("s3cr3t");
    assertThat(Initializer.of("hf://a/b").secret("hf").env("K", "V").toString())
        .isEqualTo("initializer(hf://a/b, env=[K], secret=hf)");
  }

  // ---- refused before any request --------------------------------------------------------------

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of("a name too long for the JobSet's pods",
            Deployers.trainJob("a".repeat(49)), "name",
            "shorten the name to at most 48 characters"),
        Arguments.of("the same, counting 11 nodes",
            Deployers.trainJob("a".repeat(48)).numNodes(11), "name", "at most 47"),
        Arguments.of("the same, counting the dataset initializer",
            Deployers.trainJob("a".repeat(34)).datasetInitializer("hf://a/b"), "name",
            "at most 33"),
        Arguments.of("the same, counting uniqueName()",
            Deployers.trainJob("a".repeat(43)).uniqueName(), "name", "at most 42"),
        Arguments.of("a reserved PET_ variable",
            Deployers.trainJob("a").env("PET_NNODES", "4"), "env",
            "[PET_NNODES] is set by the Trainer's torch plugin"),
        Arguments.of("a reserved variable from a mutator",
            Deployers.trainJob("a").mutate(Mutators.envFromSecret("PET_MASTER_ADDR", "s", "k")),
            "env",
            "must not have reserved envs"),
        Arguments.of("an MPI variable", Deployers.trainJob("a").env(
            "OMPI_MCA_orte_default_hostfile", "/h"), "env", "MPI plugin"),
        Arguments.of("backoffLimit", Deployers.trainJob("a").backoffLimit(0), "backoffLimit",
            "runtime's Job template"),
        Arguments.of("ttlSecondsAfterFinished",
            Deployers.trainJob("a").ttlSecondsAfterFinished(60), "ttlSecondsAfterFinished",
            "delete the job"),
        Arguments.of("a PriorityClass", Deployers.trainJob("a")
            .mutate(Mutators.priorityClass("high")), "priorityClassName",
            "WorkloadPriorityClass"),
        Arguments.of("a sidecar", Deployers.trainJob("a").mutate(sidecar()), "mutate(..)",
            "put the sidecar into the runtime"),
        Arguments.of("a container port", Deployers.trainJob("a").mutate(t -> t
            .putContainerField("ports", List.of(Map.of("containerPort", 8080)))), "ports",
            "TrainingRuntime"),
        Arguments.of("a runtime the local cluster does not know", Deployers.trainJob("a")
            .runtime("deepspeed-distributed").on(Clusters.local()), "runtime",
            ".runtime(\"torch-distributed\") here"),
        Arguments.of("a namespaced runtime on podman", Deployers.trainJob("a")
            .namespacedRuntime("torch-distributed").on(Clusters.podman()), "runtime",
            "Clusters.kubernetes()"),
        Arguments.of("image-pull Secrets on v2.0", Deployers.trainJob("a")
            .trainerApi(TrainerApi.V2_0).mutate(Mutators.imagePullSecrets("creds")),
            "trainerApi", "no field for imagePullSecrets"),
        Arguments.of("affinity on v2.0", Deployers.trainJob("a").trainerApi(TrainerApi.V2_0)
            .mutate(Mutators.affinity(AFFINITY)), "trainerApi", "no field for affinity"),
        Arguments.of("a container security context on v2.0", Deployers.trainJob("a")
            .trainerApi(TrainerApi.V2_0).mutate(Mutators.securityContext()
                .readOnlyRootFilesystem()), "trainerApi", "container securityContext"));
  }

  private static PodMutator sidecar() {
    return t -> ((List<Object>) t.podSpec().get("containers")).add(
        new java.util.LinkedHashMap<>(Map.of("name", "proxy", "image", "envoy")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void isRefusedBeforeAnyRequest(String what, TrainJobDeployer deployer, String field,
      String fix) {
    assertThatThrownBy(() -> deployer.asDeployer().validate(Fixtures.context()))
        .isInstanceOf(InvalidInputException.class)
        .satisfies(e -> assertThat(((InvalidInputException) e).field()).isEqualTo(field))
        .hasMessageContaining(fix);
  }

  @Test
  void settingsAreCheckedWhereTheyAreMade() {
    assertThatThrownBy(() -> Deployers.trainJob("a").numNodes(0))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("numNodes");
    assertThatThrownBy(() -> Deployers.trainJob("a").numProcPerNode(0))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("numProcPerNode");
    assertThatThrownBy(() -> Deployers.trainJob("a").managedBy("me"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("ManagedBy must be trainer.kubeflow.org/trainjob-controller");
    assertThatThrownBy(() -> Initializer.of("fashion_mnist"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("storageUri may be empty, or it must be a valid URI");
    assertThatThrownBy(() -> Deployers.trainJob("a").runtime("Torch_Distributed"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("runtime");
    assertThatThrownBy(() -> Deployers.trainJob("1abc"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("name");
    assertThatThrownBy(() -> Deployers.trainJob("a").mutate(Mutators.gpus(1),
        ReplicaType.WORKER)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("without a replica type");
  }

  private static String golden(String name) throws IOException {
    try (InputStream in = TrainJobTest.class.getResourceAsStream("/golden/trainjob/" + name
        + ".yaml")) {
      assertThat(in).as("golden file " + name + ".yaml (create it with -Dgolden.update=true)")
          .isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}

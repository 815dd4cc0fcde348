package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;
import dev.fairing4j.deployer.kubeflow.SchedulingPolicy;
import dev.fairing4j.deployer.kubeflow.SuccessPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Kubeflow operator's admission webhook (v1.9.3, as deployed by the kit) never rejects what
 * fairing4j's own validation accepts: every golden seed manifest and a set of manifests using
 * every job option and mutator, each valid against the CRD schemas here, is created on the real
 * API server as a server-side dry run, which runs the webhook and the schema validation but
 * stores nothing. A manifest the webhook must refuse (no {@code pytorch} container) shows that
 * the dry run does reach it.
 */
@Tag(Tags.CLUSTER)
class ClusterWebhookIT {
  private static final Path GOLDEN = Path.of("src/test/resources/golden/examples");
  private static final CrdSchemaValidator CRDS = CrdSchemaValidator.load();
  private static final Map<String, Object> ZONE_AFFINITY = Map.of("nodeAffinity", Map.of(
      "requiredDuringSchedulingIgnoredDuringExecution", Map.of("nodeSelectorTerms", List.of(
          Map.of("matchExpressions", List.of(Map.of("key", "zone", "operator", "In",
              "values", List.of("a", "b"))))))));

  private static ClusterKit kit;
  private static String namespace;
  @TempDir static Path dir;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
    namespace = kit.namespace();
  }

  static Stream<String> golden() {
    return Stream.of("traindb-mnist", "arena-dist", "gloo-demo", "tf-multiworker",
        "pytorch-simple");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("golden")
  void theWebhookAdmitsEveryGoldenSeedManifest(String name) throws IOException {
    // The git example's golden file masks what depends on the cache path (ExamplesDryRunTest).
    String yaml = Files.readString(GOLDEN.resolve(name + ".yaml"))
        .replace("<context-tag>", "0123456789abcdef").replace("<run-id>", "0123456789ab");
    CRDS.assertAllValid(yaml);
    Path manifest = Files.writeString(dir.resolve("golden-" + name + ".yaml"), yaml);

    ClusterKit.Result created = kit.run(List.of("create", "--dry-run=server", "-f",
        manifest.toString()));

    assertThat(created.status()).as(created.output()).isZero();
    assertThat(created.output()).contains("(server dry run)").doesNotContain("denied");
  }

  static Stream<Arguments> variants() {
    return Stream.of(
        Arguments.of("pytorch-elastic", Deployers.pyTorchJob("v-elastic").workers(2)
            .elastic(1, 3).nprocPerNode("2")),
        Arguments.of("pytorch-exitcode", Deployers.pyTorchJob("v-exitcode").workers(1)
            .restartPolicy(RestartPolicy.EXIT_CODE)
            .restartPolicy(ReplicaType.MASTER, RestartPolicy.NEVER)
            .cleanPodPolicy(CleanPodPolicy.ALL)
            .schedulingPolicy(SchedulingPolicy.empty().withMinAvailable(2).withQueue("q")
                .withPriorityClass("high"))
            .ttlSecondsAfterFinished(600).activeDeadlineSeconds(3600).backoffLimit(2)
            .suspend(true).kueueQueue("team-queue")),
        // The Master asks for more GPUs than the Workers: one process count must be named.
        Arguments.of("pytorch-every-mutator", Deployers.pyTorchJob("v-mutators").workers(2)
            .nprocPerNode("1")
            .mutate(Mutators.resources("500m", "1Gi"))
            .mutate(Mutators.gpus(1).amd())
            .mutate(Mutators.resources("1", "2Gi"), ReplicaType.MASTER)
            .mutate(Mutators.gpus(2), ReplicaType.MASTER)
            .mutate(Mutators.pvc("data", "/data").readOnly().subPath("mnist"))
            .mutate(Mutators.secretVolume("creds", "/etc/creds"))
            .mutate(Mutators.configMapVolume("settings", "/etc/settings"))
            .mutate(Mutators.emptyDir("scratch", "/scratch"))
            .mutate(Mutators.hostPath("/mnt/cache", "/cache"))
            .mutate(Mutators.sharedMemory("2Gi"))
            .env("EPOCHS", "3")
            .mutate(Mutators.envFromSecret("TOKEN", "creds", "token"))
            .mutate(Mutators.nodeSelector("accelerator", "a100"))
            .mutate(Mutators.toleration("nvidia.com/gpu", "present", "NoSchedule"))
            .mutate(Mutators.tolerationExists("dedicated", "NoExecute"))
            .mutate(Mutators.affinity(ZONE_AFFINITY))
            .mutate(Mutators.imagePullSecrets("pull"))
            .mutate(Mutators.serviceAccount("trainer"))
            .mutate(Mutators.priorityClass("high"))
            .mutate(Mutators.labels(Map.of("team", "vision")))
            .mutate(Mutators.annotations(Map.of("fairing4j.dev/note", "variant")))
            .mutate(Mutators.securityContext().runAsUser(1000).runAsGroup(1000).fsGroup(1000)
                .runAsNonRoot().noPrivilegeEscalation().dropAllCapabilities())
            .env("LR", "0.01").args("--epochs=1").disableIstioSidecar()),
        Arguments.of("tfjob-ps-evaluator", Deployers.tfJob("v-tf").chief(1).ps(2).workers(3)
            .evaluator(1).successPolicy(SuccessPolicy.ALL_WORKERS)
            .restartPolicy(RestartPolicy.ON_FAILURE)
            .restartPolicy(ReplicaType.EVALUATOR, RestartPolicy.NEVER)
            .cleanPodPolicy(CleanPodPolicy.RUNNING)
            .mutate(Mutators.resources("1", "1Gi"))
            .mutate(Mutators.gpus(1))
            .mutate(Mutators.gpus(1), ReplicaType.PS)),
        Arguments.of("tfjob-workers-only", Deployers.tfJob("v-tf-workers").workers(2)),
        Arguments.of("batch-indexed", Deployers.batchJob("v-batch").replicas(3)
            .restartPolicy(RestartPolicy.ON_FAILURE).backoffLimit(1)
            .mutate(Mutators.resources("1", "1Gi"))),
        Arguments.of("batch-work-queue", Deployers.batchJob("v-queue").completions(4)
            .parallelism(2)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void theWebhookAdmitsWhatOurValidationAccepts(String name, JobDeployer<?> deployer)
      throws IOException {
    Path script = Files.writeString(dir.resolve("train.py"), "print('hello')\n");
    String yaml = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        // Credentials make the job bring an image-pull Secret along, admitted too.
        .builder(Builders.jib("python:3.11-slim").pushTo("registry.example.com/team/" + name)
            .credentials("ci", Secret.of("not-sent")))
        .deployer(deployer.namespace(namespace).on(kit.cluster()))
        .dryRun();
    CRDS.assertAllValid(yaml);
    Path manifest = Files.writeString(dir.resolve(name + ".yaml"), yaml);

    ClusterKit.Result created = kit.run(List.of("create", "--dry-run=server", "-f",
        manifest.toString()));

    assertThat(created.status()).as(yaml + "\n" + created.output()).isZero();
    assertThat(created.output()).contains("(server dry run)").doesNotContain("denied");
  }

  @Test
  void theDryRunReachesTheWebhookWhichRefusesAJobWithoutItsContainer() throws IOException {
    Path manifest = Files.writeString(dir.resolve("no-pytorch.yaml"), """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata: {name: no-pytorch, namespace: %s}
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template:
                spec:
                  containers: [{name: trainer, image: python:3.11-slim}]
        """.formatted(namespace));

    ClusterKit.Result created = kit.run(List.of("create", "--dry-run=server", "-f",
        manifest.toString()));

    assertThat(created.status()).isNotZero();
    assertThat(created.output()).contains("admission webhook", "denied the request",
        "pytorch");
  }
}

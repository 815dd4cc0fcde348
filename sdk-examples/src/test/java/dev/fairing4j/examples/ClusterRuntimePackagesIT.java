package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.trainer.RuntimePackages;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * The Kubeflow SDK's {@code list_runtimes()} and {@code get_runtime_packages(runtime)} on the real
 * Kubeflow Trainer v2 controllers of the kit: a TrainingRuntime of the suite's namespace on the
 * torch base (the host's Python with Debian's torch) is listed beside the kit's
 * ClusterTrainingRuntimes, and its packages are read by a one-node TrainJob that the Trainer runs
 * on the node: the versions it reports are those of the host interpreter the base was made from,
 * asked directly, and the TrainJob is gone afterwards.
 */
@Tag(Tags.CLUSTER)
@Tag(Tags.TRAINER_V2)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterRuntimePackagesIT {
  private static final String RUNTIME = "kit-torch";

  private static ClusterKit kit;
  private static String namespace;
  @TempDir
  static Path dir;

  @BeforeAll
  static void runtimeOnTheTorchBase() throws Exception {
    kit = ClusterKit.get();
    if (kit.run(List.of("get", "crd", "trainingruntimes.trainer.kubeflow.org")).status() != 0) {
      throw new AssertionFailedError("the kit runs no Kubeflow Trainer v2: bring it up without"
          + " the v1 operator and start the Trainer and JobSet controllers: KUBECONFIG=$(OPERATOR=0"
          + " ../shared/k8s/cluster/up.sh | tail -1); ../shared/k8s/trainer-v2/up.sh"
          + " (.ci/run does this in its trainer-v2 phase)");
    }
    namespace = kit.namespace();
    Path runtime = Files.writeString(dir.resolve("runtime.yaml"), """
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainingRuntime
        metadata:
          name: %s
          namespace: %s
          labels:
            trainer.kubeflow.org/framework: torch
        spec:
          mlPolicy:
            numNodes: 1
            torch: {}
          template:
            spec:
              replicatedJobs:
                - name: node
                  template:
                    metadata:
                      labels:
                        trainer.kubeflow.org/trainjob-ancestor-step: trainer
                    spec:
                      backoffLimit: 0
                      template:
                        spec:
                          restartPolicy: Never
                          containers:
                            - name: node
                              image: %s
        """.formatted(RUNTIME, namespace, kit.base().reference()), StandardCharsets.UTF_8);
    kit.kubectl("apply", "-f", runtime.toString());
  }

  @Test
  void aRuntimeIsListedAndItsPackagesAreReadByATrainJobTheTrainerRuns() throws Exception {
    TrainingClient client = TrainingClient.connect(kit.cluster()).inNamespace(namespace);

    assertThat(client.runtimes().find(RUNTIME)).contains(new TrainingRuntime(RUNTIME,
        "TrainingRuntime", Optional.of(namespace), Optional.of("torch"), 1,
        Optional.of(kit.base().reference()), 0));
    assertThat(client.runtimes().names()).contains("torch-distributed");

    long started = System.nanoTime();
    RuntimePackages packages = client.runtimePackages(RUNTIME, Duration.ofMinutes(3));
    System.out.println("[measure] runtimePackages on the kit: "
        + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms; "
        + packages.toString().lines().findFirst().orElse(""));

    List<String> versions = Tools.distributionVersions(Tools.torchPython(), "torch", "numpy");
    assertThat(packages.version("torch")).contains(versions.get(0));
    assertThat(packages.version("numpy")).contains(versions.get(1));
    assertThat(packages.gpus()).as("the kit's node has no GPU").isEmpty();
    assertThat(kit.names("trainjobs", namespace, "app.kubernetes.io/managed-by=fairing4j"))
        .as("the probe's TrainJob is deleted").noneMatch(n -> n.startsWith("packages-"));
  }
}

package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.job.internal.Json;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Bad input fails before anything is sent, with an {@link InvalidInputException} that names the
 * field and says how to fix it. Where a deployer is involved, the test also submits it to a
 * capturing cluster and checks that nothing reached it.
 */
class ValidationTest {
  private final Fixtures.CapturingCluster cluster = new Fixtures.CapturingCluster();

  @Test
  void negativeWorkersNameTheFieldAndTheMinimum() {
    assertInvalid(() -> Deployers.pyTorchJob("mnist").workers(-1), "workers",
        "-1 is below the minimum of 0", "at least 0");
    assertInvalid(() -> Deployers.tfJob("mnist").ps(-2), "ps", "-2 is below the minimum of 0",
        "at least 0");
  }

  @Test
  void zeroReplicasAreRefusedWhereAJobNeedsOne() {
    assertInvalid(() -> Deployers.batchJob("mnist").replicas(0), "replicas",
        "0 is below the minimum of 1", "at least 1");
    assertInvalid(() -> Deployers.batchJob("mnist").completions(0), "completions",
        "below the minimum of 1", "at least 1");
    assertNothingSubmitted(Deployers.tfJob("mnist").workers(0), "workers", "no replicas at all",
        ".workers(1)");
  }

  @Test
  void aTfJobHasAtMostOneChiefAndOneEvaluator() {
    assertInvalid(() -> Deployers.tfJob("mnist").chief(2), "chief", "above the maximum of 1",
        "use 0 or 1");
    assertInvalid(() -> Deployers.tfJob("mnist").evaluator(3), "evaluator",
        "above the maximum of 1", "use 0 or 1");
  }

  @Test
  void aMalformedMemoryQuantityIsRefusedWithTheLikelySpelling() {
    assertInvalid(() -> Mutators.resources("2", "4Gx"), "memory",
        "'4Gx' is not a Kubernetes quantity", "4Gi");
    assertInvalid(() -> Mutators.resources("two", "4Gi"), "cpu", "'two' is not a Kubernetes"
        + " quantity", "500m");
    assertInvalid(() -> Mutators.sharedMemory("1 GB"), "sharedMemory", "not a Kubernetes"
        + " quantity", "1Gi");
  }

  @Test
  void aNameTooLongForThePodNamesStatesTheCap() {
    String name = "a".repeat(55);  // 63 - "-worker-9".length() = 54

    assertNothingSubmitted(Deployers.pyTorchJob(name).workers(10), "name",
        "is 55 characters long, the cap is 54 (63 minus 9 reserved", "at most 54 characters");
    assertNothingSubmitted(Deployers.pyTorchJob(name.substring(0, 50)).workers(10).uniqueName(),
        "name", "the cap is 48 (63 minus 15 reserved", "at most 48 characters");
    assertNothingSubmitted(Deployers.tfJob(name).ps(1).workers(100), "name",
        "the cap is 53 (63 minus 10 reserved", "at most 53");
    assertNothingSubmitted(Deployers.batchJob("a".repeat(63)).replicas(12), "name",
        "the cap is 60", "at most 60");
  }

  @Test
  void aNameWithCapitalsIsRefusedWithALowerCaseSuggestion() {
    assertInvalid(() -> Deployers.pyTorchJob("MNIST_Training"), "name",
        "'MNIST_Training' is not a valid name", "'mnist-training'");
    assertInvalid(() -> Deployers.tfJob("9lives"), "name", "is not a valid name",
        "start with a lower-case letter");
    assertInvalid(() -> Deployers.batchJob("mnist").namespace("Team A"), "namespace",
        "is not a valid name", "lower-case");
  }

  @Test
  void aMutatorForAReplicaTypeTheKindNeverHasIsRefusedAtOnce() {
    PodMutator gpus = Mutators.gpus(1);

    assertInvalid(() -> Deployers.pyTorchJob("mnist").mutate(gpus, ReplicaType.PS),
        "mutate(.., PS)", "PyTorchJob has no PS replicas (it has [Master, Worker])",
        "target one of [Master, Worker]");
    assertInvalid(() -> Deployers.batchJob("mnist").mutate(gpus, ReplicaType.WORKER),
        "mutate(.., Worker)", "a batch Job has no Worker replicas",
        "use mutate(mutator) without a replica type");
  }

  @Test
  void anEnvForAReplicaTypeTheKindNeverHasNamesTheEnvCall() {
    assertInvalid(() -> Deployers.batchJob("mnist").env("A", "1", ReplicaType.MASTER),
        "env(.., Master)", "a batch Job has no Master replicas",
        "use env(name, value) without a replica type");
    assertInvalid(() -> Deployers.tfJob("mnist").env("A", "1", ReplicaType.MASTER),
        "env(.., Master)", "TFJob has no Master replicas", "or use env(name, value) for all");
  }

  @Test
  void aMutatorForAReplicaTypeWithNoReplicasFailsValidation() {
    assertNothingSubmitted(Deployers.tfJob("mnist").mutate(Mutators.gpus(1), ReplicaType.PS),
        "mutate(.., PS)", "TFJob mnist has no PS replicas (it has [Worker])",
        "give the job PS replicas, or target one of [Worker]");
    assertNothingSubmitted(Deployers.pyTorchJob("mnist")
            .mutate(Mutators.gpus(1), ReplicaType.WORKER),
        "mutate(.., Worker)", "has no Worker replicas (it has [Master])", "give the job Worker");
    assertNothingSubmitted(Deployers.pyTorchJob("mnist")
            .restartPolicy(ReplicaType.WORKER, RestartPolicy.NEVER),
        "restartPolicy(Worker, ..)", "has no Worker replicas", "drop the override");
  }

  @Test
  void aPvcMountPathThatIsNotAbsoluteIsRefused() {
    assertInvalid(() -> Mutators.pvc("training-data", "mnist_data"), "mountPath",
        "'mnist_data' is not an absolute path", "/opt/mnist/models");
    assertInvalid(() -> Mutators.pvc("training-data", "/data").subPath("/abs"), "subPath",
        "must be relative", "without a leading '/'");
    assertInvalid(() -> Mutators.pvc("Training Data", "/data"), "claim",
        "is not a DNS-1123 subdomain", "lower-case");
  }

  @Test
  void aHandWrittenMutatorsMistakesSurfaceInValidation() {
    PodMutator relative = template -> template.putVolume(Map.of("name", "data", "emptyDir",
        Map.of())).putVolumeMount(Map.of("name", "data", "mountPath", "data"));
    PodMutator undeclared = template -> template.putVolumeMount(Map.of("name", "ghost",
        "mountPath", "/ghost"));
    PodMutator badQuantity = template -> template.putResource("limits", "memory", "4Gx");
    PodMutator dropsContainer = template -> template.podSpec().put("containers",
        new java.util.ArrayList<>(java.util.List.of(Json.copyMap(Map.of("name", "sidecar",
            "image", "busybox")))));

    assertNothingSubmitted(Deployers.pyTorchJob("mnist").mutate(relative), "mountPath",
        "'data' (volume data) is not an absolute path", "absolute container path");
    assertNothingSubmitted(Deployers.tfJob("mnist").mutate(undeclared), "volumeMount /ghost",
        "mounts volume 'ghost', which the pod does not declare", "add the volume");
    assertNothingSubmitted(Deployers.batchJob("mnist").mutate(badQuantity),
        "resources.limits.memory", "'4Gx' is not a Kubernetes quantity", "4Gi");
    assertNothingSubmitted(Deployers.pyTorchJob("mnist").mutate(dropsContainer), "mutate(..)",
        "the training container 'pytorch' is missing from the PyTorchJob Master pod template",
        "do not remove or rename");
  }

  @Test
  void kindSettingsOutsideTheirRangeAreRefused() {
    assertInvalid(() -> Deployers.batchJob("mnist").restartPolicy(RestartPolicy.EXIT_CODE),
        "restartPolicy", "cannot use ExitCode", "RestartPolicy.NEVER");
    assertInvalid(() -> Deployers.pyTorchJob("mnist").nprocPerNode("4x"), "nprocPerNode",
        "'4x' is not a process count", "\"auto\"");
    assertInvalid(() -> Deployers.pyTorchJob("mnist").elastic(3, 2), "elastic maxReplicas",
        "2 is below minReplicas 3", "maxReplicas >= minReplicas");
    assertInvalid(() -> Deployers.pyTorchJob("mnist").restartPolicy(ReplicaType.CHIEF,
        RestartPolicy.NEVER), "restartPolicy(Chief, ..)", "no Chief replicas", "Master or Worker");
    assertNothingSubmitted(Deployers.batchJob("mnist").replicas(2).parallelism(1), "parallelism",
        "distributed Job of 2 replicas", "drop completions(..)/parallelism(..)");
    assertInvalid(() -> Deployers.batchJob("mnist").label("team", "a b"), "label team",
        "'a b' is not a valid label value", "at most 63");
    assertInvalid(() -> Deployers.batchJob("mnist").env("A=B", "1"), "env", "not a variable name",
        "without '='");
    assertInvalid(() -> Mutators.toleration("gpu", "yes", "Sometimes"), "toleration effect",
        "'Sometimes' is unknown", "NoSchedule");
  }

  @Test
  void deployingWithoutAClusterSaysToCallOn() {
    assertInvalid(() -> Deployers.pyTorchJob("mnist").asDeployer().deploy(Fixtures.context(),
        Optional.of(Fixtures.image()), ProgressListener.NONE), "cluster",
        "is not set, so PyTorchJob mnist has nowhere to run", ".on(Clusters.kubernetes())");
  }

  @Test
  void renderingWithoutAnImageOnAnImageClusterSaysToAddABuilder() {
    assertInvalid(() -> Deployers.pyTorchJob("mnist").asDeployer().render(Fixtures.context(),
        Optional.empty()), "builder", "no image was given for mnist", ".builder(Builders.jib(");
    assertInvalid(() -> Deployers.pyTorchJob("mnist").on(cluster)
        .asDeployer().deploy(Fixtures.context(),
        Optional.empty(), ProgressListener.NONE), "builder", "its cluster runs images",
        "Clusters.local()");
    assertThat(cluster.submitted).isEmpty();
  }

  private void assertNothingSubmitted(JobDeployer<?> deployer, String field, String problem,
      String fix) {
    assertInvalid(() -> deployer.asDeployer().validate(Fixtures.context()), field, problem, fix);
    assertInvalid(() -> deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image())),
        field, problem, fix);
    assertInvalid(() -> deployer.on(cluster).asDeployer().deploy(Fixtures.context(),
        Optional.of(Fixtures.image()), ProgressListener.NONE), field, problem, fix);
    assertThat(cluster.submitted).isEmpty();
  }

  private static void assertInvalid(ThrowingCallable call, String field, String problem,
      String fix) {
    assertThatThrownBy(call).isInstanceOfSatisfying(InvalidInputException.class, e -> {
      assertThat(e.field()).isEqualTo(field);
      assertThat(e.getMessage()).contains(problem);
      assertThat(e.fix()).contains(fix);
    });
  }
}

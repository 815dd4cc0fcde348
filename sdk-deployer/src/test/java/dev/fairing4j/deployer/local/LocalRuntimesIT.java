package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.trainer.RuntimePackages;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Kubeflow SDK's runtime verbs on this machine: the local cluster lists the runtime it stands
 * in for as a cluster with Trainer's shipped runtimes would, and reads its packages by running
 * the probe as a one-node TrainJob with this machine's Python in the job's sandbox (the versions
 * it reports are the interpreter's own, asked directly); the job is gone afterwards. The podman
 * cluster, which runs a pipeline's image, refuses before it runs anything.
 */
@Timeout(90)
class LocalRuntimesIT extends LocalClusterTestBase {
  private TrainingClient client() {
    return TrainingClient.connect(LocalCluster.create().stateDir(state).volumesDir(volumes));
  }

  @Test
  void theLocalClusterListsTheRuntimeItStandsInFor() {
    assertThat(client().runtimes().runtimes()).containsExactly(new TrainingRuntime(
        "torch-distributed", "ClusterTrainingRuntime", Optional.empty(), Optional.of("torch"), 1,
        Optional.empty(), 0));
    assertThat(client().runtimes().toString()).containsPattern(
        "torch-distributed +ClusterTrainingRuntime +torch +1 +0 +\\(this machine\\)");
  }

  @Test
  void itsPackagesAreThoseOfThePythonItRunsJobsWithAndTheProbeLeavesNoJob() throws Exception {
    RuntimePackages packages = client().runtimePackages("torch-distributed",
        Duration.ofSeconds(60));

    // Asked of the interpreter directly: the local cluster runs torch code with /usr/bin/python3.
    List<String> versions = Tools.distributionVersions(Tools.torchPython(), "torch", "numpy");
    assertThat(packages.version("torch")).contains(versions.get(0));
    assertThat(packages.version("numpy")).contains(versions.get(1));
    assertThat(packages.packages().size()).isGreaterThan(10);
    assertThat(client().listAll().jobs()).as("the probe's job is deleted").isEmpty();
  }

  @Test
  void aMissingRuntimeNamesTheOneThereIs() {
    assertThat(catchThrowableOfType(() -> client().runtimePackages("deepspeed-distributed",
        Duration.ofSeconds(5)), dev.fairing4j.core.FairingException.class))
        .hasMessageContaining("no ClusterTrainingRuntime or TrainingRuntime named"
            + " 'deepspeed-distributed' (this cluster has torch-distributed)");
  }

  @Test
  void podmanRefusesBeforeRunningAnything() {
    PodmanCluster podman = PodmanCluster.create().stateDir(state);
    InvalidInputException refused = catchThrowableOfType(() -> TrainingClient.connect(podman)
        .runtimePackages("torch-distributed", Duration.ofSeconds(5)),
        InvalidInputException.class);

    assertThat(refused.field()).isEqualTo("runtime");
    assertThat(refused).hasMessageContaining("runs the image a pipeline builds");
    assertThat(TrainingClient.connect(podman).listAll().jobs()).isEmpty();
  }
}

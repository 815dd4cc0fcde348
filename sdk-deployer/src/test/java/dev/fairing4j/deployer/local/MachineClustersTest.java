package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.OnTimeout;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.local.internal.LocalTrainingJob;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two clusters on this machine share their options, their values and their verbs: each
 * option returns the caller's own cluster class, equal values are equal clusters, a podman
 * cluster is never equal to the local one, both list and attach from their state directory, and
 * both have a {@link TrainingClient}.
 */
class MachineClustersTest {
  @TempDir
  Path state;

  @Test
  void theSharedOptionsReturnEachClustersOwnClassAndMakeEqualValues() {
    LocalCluster local = LocalCluster.create().stateDir(state).volume("data", state)
        .ignoreGpuRequests().withoutSandbox();
    PodmanCluster podman = PodmanCluster.create().stateDir(state).volume("data", state)
        .ignoreGpuRequests().podman(Path.of("/usr/bin/podman"));

    assertThat(local).isEqualTo(LocalCluster.create().stateDir(state).volume("data", state)
        .ignoreGpuRequests().withoutSandbox()).hasSameHashCodeAs(LocalCluster.create()
        .stateDir(state).volume("data", state).ignoreGpuRequests().withoutSandbox());
    assertThat(podman).isEqualTo(PodmanCluster.create().stateDir(state).volume("data", state)
        .ignoreGpuRequests().podman(Path.of("/usr/bin/podman")));
    assertThat((Object) local).isNotEqualTo(podman);
    assertThat(local.claimDir("data")).isEqualTo(state);
    assertThat(podman.claimDir("data")).isEqualTo(state);
    assertThat(local.describe()).isEqualTo("local(state=" + state
        + ", sandbox=none, ignoreGpuRequests)").isEqualTo(local.toString());
    assertThat(podman.describe()).isEqualTo("podman(state=" + state
        + ", podman=/usr/bin/podman, ignoreGpuRequests)");
  }

  @Test
  @SuppressWarnings("deprecation") // the deprecated option keeps working
  void killOnTimeoutStillShowsInTheValue() {
    assertThat(LocalCluster.create().stateDir(state).killOnTimeout().describe())
        .endsWith(", killOnTimeout)");
    assertThat(PodmanCluster.create().stateDir(state).killOnTimeout())
        .isNotEqualTo(PodmanCluster.create().stateDir(state));
  }

  @Test
  void bothClustersListNothingFromAnEmptyStateDirectory() {
    assertThat(LocalCluster.create().stateDir(state).listAll()).isEmpty();
    assertThat(PodmanCluster.create().stateDir(state).list("default")).isEmpty();
    assertThat(PodmanCluster.create().stateDir(state).attach("default", "mnist")).isEmpty();
  }

  @Test
  void aTrainingClientConnectsToThePodmanClusterAsToTheLocalOne() {
    TrainingClient podman = TrainingClient.connect(PodmanCluster.create().stateDir(state));
    TrainingClient local = TrainingClient.connect(LocalCluster.create().stateDir(state));

    assertThat(podman.namespace()).isEqualTo("default");
    assertThat(podman.list().jobs()).isEmpty();
    assertThat(local.list().jobs()).isEmpty();
    assertThat(podman.toString()).startsWith("TrainingClient(podman(state=" + state);
  }

  /** Nothing is read, nothing waited for: the refusal comes first and names the way out. */
  @Test
  void aLocalJobRefusesToBeSuspendedOnTimeoutBeforeWaiting() {
    TrainingJob job = new LocalTrainingJob(new StateStore(state), state.resolve("jobs/x"),
        "PyTorchJob", "mnist", "default", false);

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofHours(1), OnTimeout.SUSPEND))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("onTimeout");
          assertThat(e.getMessage()).contains("mnist", "cannot be suspended");
          assertThat(e.fix()).contains("OnTimeout.DELETE", "OnTimeout.KEEP");
        });
  }
}

package dev.fairing4j.deployer.job.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.monitor.internal.JobDirectory;
import dev.fairing4j.deployer.storage.Volumes;
import dev.fairing4j.deployer.storage.internal.StorageBackend;
import org.junit.jupiter.api.Test;

/**
 * The SDK's clusters keep their backend private (so that submission plumbing stays off their
 * public signatures) and hand it out only through {@link ClusterBackends}; a {@link Cluster} of
 * another class has no backend, and every entry point refuses it before any work.
 */
class ClusterBackendsTest {
  private static final Cluster FOREIGN = () -> "mine";

  @Test
  void eachSdkClusterReachesItsBackendWithTheCapabilitiesOfItsKind() {
    ClusterBackend local = ClusterBackends.of(Clusters.local()).orElseThrow();
    ClusterBackend podman = ClusterBackends.of(Clusters.podman()).orElseThrow();
    ClusterBackend kubernetes = ClusterBackends.of(Clusters.kubernetes()).orElseThrow();

    assertThat(local.runsContextDirectly()).isTrue();
    assertThat(local).isInstanceOf(JobDirectory.Provider.class)
        .isNotInstanceOf(StorageBackend.class);
    assertThat(podman.runsContextDirectly()).isFalse();
    assertThat(podman).isInstanceOf(JobDirectory.Provider.class)
        .isNotInstanceOf(StorageBackend.class);
    assertThat(kubernetes.runsContextDirectly()).isFalse();
    assertThat(kubernetes).isInstanceOf(StorageBackend.class)
        .isInstanceOf(JobDirectory.Provider.class);
  }

  @Test
  void aClusterOfAnotherClassHasNoBackendAndIsRefusedBeforeAnyWork() {
    assertThat(ClusterBackends.of(FOREIGN)).isEmpty();
    assertThatThrownBy(() -> Deployers.pyTorchJob("mnist").on(FOREIGN)
        .asDeployer().validateTarget())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("mine");
    assertThatThrownBy(() -> TrainingClient.connect(FOREIGN))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("cannot list its jobs");
    assertThatThrownBy(() -> Volumes.on(FOREIGN).ensure(Volumes.claim("data", "1Gi")))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("cannot hold");
  }

  @Test
  void aRegistrationCannotRedirectAnSdkClusterOnceItsClassRegistered() {
    ClusterBackend before = ClusterBackends.of(Clusters.local()).orElseThrow();
    ClusterBackends.register(Clusters.local().getClass(), cluster -> null);
    assertThat(ClusterBackends.of(Clusters.local())).get()
        .hasSameClassAs(before);
  }
}

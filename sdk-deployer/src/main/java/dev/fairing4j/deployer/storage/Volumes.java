package dev.fairing4j.deployer.storage;

import dev.fairing4j.deployer.job.Cluster;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Storage for training jobs, the seed scenario's way: a hostPath PersistentVolume and a claim that
 * binds to it by label, created once and left alone when they exist as wanted.
 *
 * <pre>{@code
 * var models = Volumes.hostPathPersistentVolume("traindb-models", "/mnt/traindb/models", "10Gi",
 *     List.of("ReadWriteOnce"), Map.of("app", "traindb-models"));
 * var claim = Volumes.claim("traindb-models-claim", "10Gi", Map.of("app", "traindb-models"), "");
 * Volumes.on(Clusters.kubernetes()).inNamespace("kubeflow").ensure(models, claim);
 * // then: .mutate(Mutators.pvc("traindb-models-claim", "/opt/mnist/models"))
 * }</pre>
 *
 * Every factory checks its input at once and throws
 * {@link dev.fairing4j.core.InvalidInputException} naming the field and the fix; nothing is sent
 * before {@link ClusterStorage#ensure}. {@code toYaml()} on each value shows the manifest.
 */
public final class Volumes {
  private Volumes() {}

  /**
   * A PersistentVolume on the node's directory {@code path}.
   *
   * @param name a DNS-1123 subdomain, unique in the cluster
   * @param path the node's directory, absolute; created if missing
   * @param capacity e.g. {@code 10Gi}
   * @param accessModes e.g. {@code List.of("ReadWriteOnce")}; also ReadOnlyMany, ReadWriteMany,
   *     ReadWriteOncePod
   * @param labels what claims select it by; may be empty
   */
  public static HostPathVolume hostPathPersistentVolume(String name, String path, String capacity,
      Collection<String> accessModes, Map<String, String> labels) {
    return new HostPathVolume(name, path, capacity, StorageValues.accessModeNames("accessModes",
        accessModes), labels, Optional.empty());
  }

  /** A ReadWriteOnce PersistentVolume on the node's directory {@code path}, without labels. */
  public static HostPathVolume hostPathPersistentVolume(String name, String path,
      String capacity) {
    return hostPathPersistentVolume(name, path, capacity, List.of("ReadWriteOnce"), Map.of());
  }

  /**
   * A ReadWriteOnce claim for {@code size} that binds a volume carrying every label of
   * {@code selector}, of StorageClass {@code storageClass}: {@code ""} for statically created
   * volumes such as {@link #hostPathPersistentVolume}, so the cluster's default class does not
   * provision a new volume instead.
   */
  public static VolumeClaim claim(String name, String size, Map<String, String> selector,
      String storageClass) {
    return new VolumeClaim(name, size, List.of(AccessMode.READ_WRITE_ONCE), selector,
        Optional.of(Objects.requireNonNull(storageClass, "storageClass")));
  }

  /** A ReadWriteOnce claim for {@code size} from the cluster's default StorageClass. */
  public static VolumeClaim claim(String name, String size) {
    return new VolumeClaim(name, size, List.of(AccessMode.READ_WRITE_ONCE), Map.of(),
        Optional.empty());
  }

  /** Storage on {@code cluster}, in its default namespace until {@code inNamespace(..)}. */
  public static ClusterStorage on(Cluster cluster) {
    return new ClusterStorage(cluster, Optional.empty());
  }
}

package dev.fairing4j.deployer.storage;

import dev.fairing4j.deployer.job.internal.Yaml;
import java.util.List;
import java.util.Map;

/**
 * Storage that outlives jobs and is created once, idempotently: a {@link HostPathVolume} or a
 * {@link VolumeClaim}. Each is an immutable value that renders itself as the manifest
 * {@link ClusterStorage#ensure} creates, for dry runs and {@code kubectl create -f -}.
 */
public sealed interface StorageObject permits HostPathVolume, VolumeClaim {
  /** The object's name. */
  String name();

  /** {@code PersistentVolume} or {@code PersistentVolumeClaim}. */
  String kind();

  /**
   * The object as sent to the API server (without a namespace: claims get the one of
   * {@link ClusterStorage#inNamespace}), as fresh mutable maps and lists.
   */
  Map<String, Object> manifest();

  /** {@link #manifest()} as a YAML document starting with {@code ---}. */
  default String toYaml() {
    return Yaml.write(List.of(manifest()));
  }
}

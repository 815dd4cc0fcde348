package dev.fairing4j.deployer.storage.internal;

import dev.fairing4j.deployer.storage.Ensured;
import java.util.Map;

/**
 * What a cluster that can hold storage does behind its public face: create a PersistentVolume or
 * claim unless an equal one exists. Clusters implement it beside {@link
 * dev.fairing4j.deployer.job.internal.ClusterBackend}, so the
 * storage helpers stay out of {@link dev.fairing4j.deployer.job.Cluster}'s public signature.
 */
public interface StorageBackend {
  /**
   * Creates {@code manifest} (a PersistentVolume, or a PersistentVolumeClaim placed in
   * {@code namespace}) when absent; leaves an equal one alone; grows a claim's size request.
   *
   * @throws dev.fairing4j.deployer.storage.StorageConflictException when the existing object
   *     differs in a field that cannot change
   */
  Ensured ensureStorage(Map<String, Object> manifest, String namespace);
}

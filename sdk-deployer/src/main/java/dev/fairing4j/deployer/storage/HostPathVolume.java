package dev.fairing4j.deployer.storage;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.Metadata;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A PersistentVolume backed by a directory on the node ({@code hostPath}): storage for a
 * single-node cluster or a test cluster, that a {@link VolumeClaim} with a matching label selector
 * binds to. Create one with {@link Volumes#hostPathPersistentVolume}; every {@code withX} returns a
 * new value and checks its input at once.
 *
 * @param name the PersistentVolume's name (cluster-wide, a DNS-1123 subdomain)
 * @param path the node's directory, absolute
 * @param capacity the size it offers claims, e.g. {@code 10Gi}
 * @param accessModes how it may be mounted, sorted, without repeats
 * @param labels labels a claim's selector matches on, sorted
 * @param storageClass the StorageClass name; empty (no class) binds claims asking for class
 *     {@code ""}
 */
public record HostPathVolume(String name, String path, String capacity,
    List<AccessMode> accessModes, Map<String, String> labels, Optional<String> storageClass)
    implements StorageObject {

  /** Checks every part. */
  public HostPathVolume {
    Validators.dns1123Subdomain("name", name);
    Validators.requireText("path", path);
    if (!path.startsWith("/")) {
      throw InvalidInputException.of("path", "'" + path + "' is not an absolute path",
          "give the node's directory as an absolute path, e.g. /mnt/data/models");
    }
    if (Path.of(path).normalize().toString().length() != path.replaceAll("/+$", "").length()
        && !path.equals("/")) {
      throw InvalidInputException.of("path", "'" + path + "' contains '.', '..' or '//'",
          "write the directory plainly, e.g. " + Path.of(path).normalize());
    }
    capacity = StorageValues.size("capacity", capacity);
    accessModes = StorageValues.accessModes("accessModes", accessModes);
    labels = StorageValues.labels("labels", labels);
    storageClass = StorageValues.storageClass(storageClass);
  }

  /** With another node directory. */
  public HostPathVolume withPath(String newPath) {
    return new HostPathVolume(name, newPath, capacity, accessModes, labels, storageClass);
  }

  /** With another capacity, e.g. {@code 20Gi}. */
  public HostPathVolume withCapacity(String newCapacity) {
    return new HostPathVolume(name, path, newCapacity, accessModes, labels, storageClass);
  }

  /** With these access modes, e.g. {@code ReadWriteMany}. */
  public HostPathVolume withAccessModes(String... modes) {
    return withAccessModes(List.of(modes));
  }

  /** With these access modes. */
  public HostPathVolume withAccessModes(Collection<String> modes) {
    return new HostPathVolume(name, path, capacity, StorageValues.accessModeNames("accessModes",
        modes), labels, storageClass);
  }

  /** With one more label. */
  public HostPathVolume withLabel(String key, String value) {
    Map<String, String> all = new TreeMap<>(labels);
    all.put(key, value);
    return new HostPathVolume(name, path, capacity, accessModes, all, storageClass);
  }

  /** With StorageClass {@code name} ({@code ""}: no class). */
  public HostPathVolume withStorageClass(String className) {
    return new HostPathVolume(name, path, capacity, accessModes, labels,
        Optional.of(java.util.Objects.requireNonNull(className, "storageClass")));
  }

  @Override
  public String kind() {
    return "PersistentVolume";
  }

  @Override
  public Map<String, Object> manifest() {
    Map<String, Object> allLabels = new TreeMap<>(labels);
    allLabels.put(Metadata.MANAGED_BY, Metadata.MANAGED_BY_VALUE);
    Map<String, Object> metadata = Json.map();
    metadata.put("name", name);
    metadata.put("labels", allLabels);
    Map<String, Object> spec = Json.map();
    spec.put("capacity", Map.of("storage", capacity));
    spec.put("accessModes", StorageValues.apiNames(accessModes));
    // Retain: the files are the point; deleting a claim must not wipe them.
    spec.put("persistentVolumeReclaimPolicy", "Retain");
    storageClass.ifPresent(c -> spec.put("storageClassName", c));
    // Ordered, so manifests and dry runs print the same on every run (Map.of's order is not).
    Map<String, Object> hostPath = new java.util.LinkedHashMap<>();
    hostPath.put("path", path);
    hostPath.put("type", "DirectoryOrCreate");
    spec.put("hostPath", hostPath);
    return StorageValues.object(kind(), metadata, spec);
  }

  /** E.g. {@code PersistentVolume models (hostPath /mnt/models, 10Gi, ReadWriteOnce)}. */
  @Override
  public String toString() {
    return "PersistentVolume " + name + " (hostPath " + path + ", " + capacity + ", "
        + String.join(",", StorageValues.apiNames(accessModes)) + ")";
  }
}

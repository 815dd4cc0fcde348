package dev.fairing4j.deployer.storage;

import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.Metadata;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A PersistentVolumeClaim: the name a job mounts ({@code Mutators.pvc(claim, mountPath)}), bound
 * to a volume that matches its size, access modes, label selector and StorageClass. Create one
 * with {@link Volumes#claim}; every {@code withX} returns a new value and checks its input at
 * once.
 *
 * @param name the claim's name (a DNS-1123 subdomain)
 * @param size the storage it requests, e.g. {@code 10Gi}
 * @param accessModes how it is mounted, sorted, without repeats (default ReadWriteOnce)
 * @param selector labels the volume must carry; empty binds any volume that fits
 * @param storageClass the StorageClass; empty leaves it to the cluster's default class,
 *     {@code ""} asks for no class (a statically created volume such as a {@link HostPathVolume})
 */
public record VolumeClaim(String name, String size, List<AccessMode> accessModes,
    Map<String, String> selector, Optional<String> storageClass) implements StorageObject {

  /** Checks every part. */
  public VolumeClaim {
    Validators.dns1123Subdomain("name", name);
    size = StorageValues.size("size", size);
    accessModes = StorageValues.accessModes("accessModes", accessModes);
    selector = StorageValues.labels("selector", selector);
    storageClass = StorageValues.storageClass(storageClass);
  }

  /** With another requested size (a claim can grow later, never shrink). */
  public VolumeClaim withSize(String newSize) {
    return new VolumeClaim(name, newSize, accessModes, selector, storageClass);
  }

  /** With these access modes, e.g. {@code ReadWriteMany}. */
  public VolumeClaim withAccessModes(String... modes) {
    return withAccessModes(List.of(modes));
  }

  /** With these access modes. */
  public VolumeClaim withAccessModes(Collection<String> modes) {
    return new VolumeClaim(name, size, StorageValues.accessModeNames("accessModes", modes),
        selector, storageClass);
  }

  /** Binding only volumes with all these labels. */
  public VolumeClaim withSelector(Map<String, String> labels) {
    return new VolumeClaim(name, size, accessModes, labels, storageClass);
  }

  /** With StorageClass {@code className} ({@code ""}: no class, for static volumes). */
  public VolumeClaim withStorageClass(String className) {
    return new VolumeClaim(name, size, accessModes, selector,
        Optional.of(java.util.Objects.requireNonNull(className, "storageClass")));
  }

  /** Leaving the StorageClass to the cluster's default. */
  public VolumeClaim withDefaultStorageClass() {
    return new VolumeClaim(name, size, accessModes, selector, Optional.empty());
  }

  @Override
  public String kind() {
    return "PersistentVolumeClaim";
  }

  @Override
  public Map<String, Object> manifest() {
    Map<String, Object> metadata = Json.map();
    metadata.put("name", name);
    metadata.put("labels", Map.of(Metadata.MANAGED_BY, Metadata.MANAGED_BY_VALUE));
    Map<String, Object> spec = Json.map();
    spec.put("accessModes", StorageValues.apiNames(accessModes));
    if (!selector.isEmpty()) {
      spec.put("selector", Map.of("matchLabels", new TreeMap<>(selector)));
    }
    storageClass.ifPresent(c -> spec.put("storageClassName", c));
    spec.put("resources", Map.of("requests", Map.of("storage", size)));
    return StorageValues.object(kind(), metadata, spec);
  }

  /** E.g. {@code PersistentVolumeClaim models (10Gi, ReadWriteOnce, selector {app=mnist})}. */
  @Override
  public String toString() {
    return "PersistentVolumeClaim " + name + " (" + size + ", "
        + String.join(",", StorageValues.apiNames(accessModes))
        + (selector.isEmpty() ? "" : ", selector " + selector)
        + storageClass.map(c -> ", class '" + c + "'").orElse("") + ")";
  }
}

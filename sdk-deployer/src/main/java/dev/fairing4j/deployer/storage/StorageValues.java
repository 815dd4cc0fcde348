package dev.fairing4j.deployer.storage;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.Metadata;
import dev.fairing4j.deployer.job.internal.Quantities;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/** The input checks the storage values share, each naming the field and the fix. */
final class StorageValues {
  private StorageValues() {}

  static String size(String field, String quantity) {
    String checked = Validators.quantity(field, quantity);
    if (Quantities.value(checked).orElse(BigDecimal.ZERO).signum() <= 0) {
      throw InvalidInputException.of(field, "'" + quantity + "' is not a positive size",
          "give a size such as '10Gi'");
    }
    return checked;
  }

  static List<AccessMode> accessModes(String field, Collection<AccessMode> modes) {
    Objects.requireNonNull(modes, field);
    if (modes.isEmpty()) {
      throw InvalidInputException.of(field, "is empty", "give at least one access mode, e.g."
          + " ReadWriteOnce");
    }
    modes.forEach(mode -> Objects.requireNonNull(mode, field + " element"));
    // Sorted and without repeats: the order of access modes means nothing to Kubernetes.
    return List.copyOf(EnumSet.copyOf(modes));
  }

  static List<AccessMode> accessModeNames(String field, Collection<String> names) {
    Objects.requireNonNull(names, field);
    return accessModes(field, names.stream().map(name -> AccessMode.parse(field, name)).toList());
  }

  static Map<String, String> labels(String field, Map<String, String> labels) {
    Objects.requireNonNull(labels, field);
    labels.forEach(Metadata::checkLabel);
    return Collections.unmodifiableMap(new TreeMap<>(labels));
  }

  static Optional<String> storageClass(Optional<String> storageClass) {
    Objects.requireNonNull(storageClass, "storageClass");
    // "" is meaningful: no class, so a claim binds only to class-less PersistentVolumes.
    storageClass.filter(c -> !c.isEmpty())
        .ifPresent(c -> Validators.dns1123Subdomain("storageClass", c));
    return storageClass;
  }

  static List<String> apiNames(List<AccessMode> modes) {
    return modes.stream().map(AccessMode::apiName).toList();
  }

  /** A core/v1 object of {@code kind}, as fresh mutable maps the API server is sent. */
  static Map<String, Object> object(String kind, Map<String, Object> metadata,
      Map<String, Object> spec) {
    Map<String, Object> object = Json.map();
    object.put("apiVersion", "v1");
    object.put("kind", kind);
    object.put("metadata", metadata);
    object.put("spec", spec);
    return Json.copyMap(object);
  }
}

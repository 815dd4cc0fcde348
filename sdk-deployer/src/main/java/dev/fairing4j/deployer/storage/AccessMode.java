package dev.fairing4j.deployer.storage;

import dev.fairing4j.core.InvalidInputException;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How a volume may be mounted, as Kubernetes spells it in {@code spec.accessModes}: by one node
 * read-write, by many nodes read-only, by many nodes read-write, or by one pod.
 */
public enum AccessMode {
  /** Read-write by the pods of one node. */
  READ_WRITE_ONCE("ReadWriteOnce"),
  /** Read-only by many nodes. */
  READ_ONLY_MANY("ReadOnlyMany"),
  /** Read-write by many nodes (needs storage that supports it, e.g. NFS). */
  READ_WRITE_MANY("ReadWriteMany"),
  /** Read-write by a single pod. */
  READ_WRITE_ONCE_POD("ReadWriteOncePod");

  private final String apiName;

  AccessMode(String apiName) {
    this.apiName = apiName;
  }

  /** The name in manifests, e.g. {@code ReadWriteOnce}. */
  public String apiName() {
    return apiName;
  }

  /**
   * The mode Kubernetes calls {@code name} ({@code ReadWriteOnce}, ..., or the short forms
   * {@code RWO}, {@code ROX}, {@code RWX}, {@code RWOP} kubectl prints).
   *
   * @throws InvalidInputException naming {@code field} and the allowed values
   */
  public static AccessMode parse(String field, String name) {
    for (AccessMode mode : values()) {
      if (mode.apiName.equals(name) || mode.shortName().equals(name)) {
        return mode;
      }
    }
    throw InvalidInputException.of(field, "'" + name + "' is not an access mode",
        "use one of " + Arrays.stream(values()).map(AccessMode::apiName)
            .collect(Collectors.joining(", ")));
  }

  private String shortName() {
    return switch (this) {
      case READ_WRITE_ONCE -> "RWO";
      case READ_ONLY_MANY -> "ROX";
      case READ_WRITE_MANY -> "RWX";
      case READ_WRITE_ONCE_POD -> "RWOP";
    };
  }

  @Override
  public String toString() {
    return apiName;
  }
}

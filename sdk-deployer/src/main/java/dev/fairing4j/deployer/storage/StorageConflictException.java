package dev.fairing4j.deployer.storage;

import dev.fairing4j.core.FairingException;
import java.util.Objects;

/**
 * A volume or claim of the wanted name exists already, but differs in a field that cannot be
 * changed (a PersistentVolume's path, capacity or access modes; a claim's access modes, selector,
 * StorageClass, or a smaller size), or is a volume that can bind no claim any more (Released,
 * its claim deleted). Nothing was changed: the fix is to delete (or free) the old object or to
 * give the new one another name, and the hint says how.
 */
public final class StorageConflictException extends FairingException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String existingValue;
  private final String wantedValue;

  private StorageConflictException(String subject, String field, String existingValue,
      String wantedValue, String hint) {
    super("ensure storage", subject, subject + " exists with a different " + field + ": it has "
        + existingValue + ", wanted " + wantedValue, hint, null, null, null);
    this.field = field;
    this.existingValue = existingValue;
    this.wantedValue = wantedValue;
  }

  /**
   * A conflict on {@code field} (a manifest path such as {@code spec.hostPath.path}) of
   * {@code subject} (e.g. {@code PersistentVolume models}).
   */
  public static StorageConflictException of(String subject, String field, String existingValue,
      String wantedValue, String hint) {
    return new StorageConflictException(Objects.requireNonNull(subject, "subject"),
        Objects.requireNonNull(field, "field"), Objects.requireNonNull(existingValue, "existing"),
        Objects.requireNonNull(wantedValue, "wanted"), Objects.requireNonNull(hint, "hint"));
  }

  /** The differing field, as a manifest path, e.g. {@code spec.hostPath.path}. */
  public String field() {
    return field;
  }

  /** The value on the cluster. */
  public String existingValue() {
    return existingValue;
  }

  /** The value asked for. */
  public String wantedValue() {
    return wantedValue;
  }
}

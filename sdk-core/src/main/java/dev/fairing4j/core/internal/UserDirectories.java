package dev.fairing4j.core.internal;

import java.nio.file.Path;

/**
 * Where fairing4j keeps a user's files, by the XDG base-directory rules: caches under
 * {@code $XDG_CACHE_HOME/fairing4j} (else {@code ~/.cache/fairing4j}), the local cluster's jobs
 * under {@code $XDG_STATE_HOME/fairing4j} ({@code ~/.local/state}), claim directories under
 * {@code $XDG_DATA_HOME/fairing4j} ({@code ~/.local/share}). One rule, so the cache table's
 * local-jobs row and the local cluster name the same directory. Nothing is created.
 */
public final class UserDirectories {
  private UserDirectories() {}

  /** The cache root. */
  public static Path cache() {
    return of("XDG_CACHE_HOME", ".cache");
  }

  /** The state root (local jobs). */
  public static Path state() {
    return of("XDG_STATE_HOME", ".local/state");
  }

  /** The data root (claim directories). */
  public static Path data() {
    return of("XDG_DATA_HOME", ".local/share");
  }

  /** A variable set to an absolute path wins; otherwise the directory under the home. */
  private static Path of(String variable, String underHome) {
    String value = System.getenv(variable);
    Path base = value == null || value.isBlank() || !value.startsWith("/")
        ? Path.of(System.getProperty("user.home")).resolve(underHome) : Path.of(value);
    return base.resolve("fairing4j");
  }
}

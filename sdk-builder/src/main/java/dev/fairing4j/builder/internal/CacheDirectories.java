package dev.fairing4j.builder.internal;

import dev.fairing4j.core.cache.Caches;
import java.nio.file.Path;

/**
 * Where fairing4j keeps what is worth keeping between builds and JVMs (Jib's base layers, git
 * trees by commit): the user's caches ({@link Caches#user()}), which builds keep within their
 * limits.
 */
public final class CacheDirectories {
  private CacheDirectories() {}

  /** The fairing4j cache root; nothing is created. */
  public static Path root() {
    return Caches.user().root();
  }

  /** A named directory below {@link #root()}, e.g. {@code jib} or {@code git-trees}. */
  public static Path of(String name) {
    return Caches.user().directory(name);
  }
}

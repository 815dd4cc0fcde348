package dev.fairing4j.builder.internal;

import java.nio.file.Path;

/**
 * Where fairing4j keeps what is worth keeping between builds and JVMs (Jib's base layers, git
 * trees by commit): {@code $XDG_CACHE_HOME/fairing4j}, else {@code ~/.cache/fairing4j}.
 */
public final class CacheDirectories {
  private CacheDirectories() {}

  /** The fairing4j cache root; nothing is created. */
  public static Path root() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()
        ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("fairing4j");
  }

  /** A named directory below {@link #root()}, e.g. {@code jib} or {@code git-trees}. */
  public static Path of(String name) {
    return root().resolve(name);
  }
}

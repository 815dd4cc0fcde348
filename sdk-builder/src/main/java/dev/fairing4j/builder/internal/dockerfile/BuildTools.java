package dev.fairing4j.builder.internal.dockerfile;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds a build tool ({@code buildah}, {@code podman}) on a search path, afresh on each call. */
public final class BuildTools {
  private BuildTools() {}

  /** {@code name} on {@code searchPath} (the value of {@code PATH}), if it is there. */
  public static Optional<Path> find(String name, String searchPath) {
    if (searchPath == null) {
      return Optional.empty();
    }
    for (String directory : searchPath.split(File.pathSeparator)) {
      if (directory.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(directory, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}

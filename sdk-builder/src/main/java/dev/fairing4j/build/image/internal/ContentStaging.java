package dev.fairing4j.build.image.internal;

import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.FairingException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Gives every context file a path on disk, because Jib layers are built from files. Files that
 * live on disk are used where they are; generated ones (a script converted from a notebook) are
 * written once to {@code <dir>/<sha256>}, so their path and modification time stay the same from
 * build to build and Jib's layer cache keeps recognising them.
 */
public final class ContentStaging {
  private final Path directory;

  /** Stages into {@code directory}, created when first needed. */
  public ContentStaging(Path directory) {
    this.directory = directory;
  }

  /** The file to read {@code file}'s bytes from. */
  public Path pathOf(ContextFile file) {
    if (file.source().isPresent()) {
      return file.source().get();
    }
    Path staged = directory.resolve(file.sha256());
    if (Files.isRegularFile(staged)) {
      return staged;
    }
    try {
      Files.createDirectories(directory);
      Path temporary = Files.createTempFile(directory, ".staging-", "");
      try (InputStream in = file.open()) {
        Files.copy(in, temporary, StandardCopyOption.REPLACE_EXISTING);
      }
      try {
        Files.move(temporary, staged, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException e) {
        Files.deleteIfExists(temporary);  // written by a parallel build: same bytes
      }
      return staged;
    } catch (IOException e) {
      throw FairingException.of("stage generated file", directory.toString(), e.getMessage(),
          "make the cache directory writable, or set another with baseLayerCache(..)", e);
    }
  }
}

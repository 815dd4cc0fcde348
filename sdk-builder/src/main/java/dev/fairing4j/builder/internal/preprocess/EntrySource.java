package dev.fairing4j.builder.internal.preprocess;

import java.nio.file.Path;
import java.util.Objects;

/** Where the entry point of a Python context comes from: a file on disk or generated text. */
public sealed interface EntrySource {

  /** A file on the host; it must be a readable regular file inside the base directory. */
  record HostFile(Path file) implements EntrySource {
    /** Checks the path. */
    public HostFile {
      Objects.requireNonNull(file, "file");
    }
  }

  /**
   * Content made in memory (a script converted from a notebook), placed at {@code relativePath}
   * below the path prefix.
   */
  record Generated(String relativePath, String content) implements EntrySource {
    /** Checks the parts. */
    public Generated {
      Objects.requireNonNull(relativePath, "relativePath");
      Objects.requireNonNull(content, "content");
    }
  }
}

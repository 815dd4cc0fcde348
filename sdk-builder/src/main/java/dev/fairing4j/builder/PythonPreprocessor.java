package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.preprocess.EntrySource;
import dev.fairing4j.builder.internal.preprocess.PythonContextBuilder;
import dev.fairing4j.builder.internal.preprocess.PythonOptions;
import dev.fairing4j.builder.internal.preprocess.SourceFiles;
import dev.fairing4j.core.BuildContext;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A Python training script on this machine, plus whatever goes with it. The image runs
 * {@code python -u /app/<entry>} by default, {@code /app/<entry>} being the entry's path relative
 * to the base directory (the entry's own directory unless {@link #baseDir} says otherwise).
 * Create one with {@link Preprocessors#python(Path)}; it is an immutable value.
 */
public final class PythonPreprocessor extends AbstractPythonPreprocessor<PythonPreprocessor> {
  private final Path entry;
  private final Optional<Path> baseDir;

  PythonPreprocessor(Path entry, Optional<Path> baseDir, PythonOptions options) {
    super(options);
    this.entry = Objects.requireNonNull(entry, "entry").toAbsolutePath().normalize();
    this.baseDir = baseDir.map(dir -> dir.toAbsolutePath().normalize());
  }

  /**
   * The host directory that maps to the path prefix; the entry and every file must lie inside it.
   * Default: the entry's directory.
   */
  public PythonPreprocessor baseDir(Path directory) {
    return new PythonPreprocessor(entry, Optional.of(Objects.requireNonNull(directory, "baseDir")),
        options);
  }

  /** The entry script, as an absolute path. */
  public Path entry() {
    return entry;
  }

  @Override
  PythonPreprocessor withOptions(PythonOptions newOptions) {
    return new PythonPreprocessor(entry, baseDir, newOptions);
  }

  @Override
  public BuildContext prepare() {
    if (baseDir.isEmpty()) {
      // Without a base directory the entry defines it, so report a missing entry as such.
      SourceFiles.requireReadableFile("entry", entry, Path.of("").toAbsolutePath());
    }
    Path base = baseDir.orElseGet(() -> entry.getParent());
    return PythonContextBuilder.build(base, new EntrySource.HostFile(entry), options);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof PythonPreprocessor that && entry.equals(that.entry)
        && baseDir.equals(that.baseDir) && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(entry, baseDir, options);
  }

  @Override
  public String toString() {
    return "python(" + entry.getFileName() + baseDir.map(d -> ", baseDir=" + d).orElse("")
        + options.summary() + ")";
  }
}

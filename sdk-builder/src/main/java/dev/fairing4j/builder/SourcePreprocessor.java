package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.preprocess.EntrySource;
import dev.fairing4j.builder.internal.preprocess.PythonContextBuilder;
import dev.fairing4j.builder.internal.preprocess.PythonOptions;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Sha256;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A Python script given as text, a Java text block in a notebook cell or a service, instead of a
 * file: what a Fairing user wrote to a file first, and what the Kubeflow SDK's
 * {@code CustomTrainer} takes in memory. The image runs {@code python -u /app/<name>} as it would
 * for a file of that name; extra files, requirements and the rest of the Python options work as
 * for {@link Preprocessors#python(Path)}, their relative paths resolving against
 * {@link #baseDir(Path)} (default: the working directory). Create one with
 * {@link Preprocessors#source(String, String)}; it is an immutable value.
 *
 * <p>Its {@link #toString()} names the script by its lines and digest, never its text: a
 * script pasted into a cell can hold what a log must not.
 */
public final class SourcePreprocessor extends AbstractPythonPreprocessor<SourcePreprocessor> {
  private final String name;
  private final String source;
  private final Optional<Path> baseDir;

  SourcePreprocessor(String name, String source, Optional<Path> baseDir,
      PythonOptions options) {
    super(options);
    this.name = name;
    this.source = source;
    this.baseDir = baseDir.map(dir -> dir.toAbsolutePath().normalize());
  }

  /** Checks {@code name} and {@code source} before anything is made from them. */
  static SourcePreprocessor of(String name, String source) {
    if (name == null || name.isBlank()) {
      throw InvalidInputException.of("name", "is empty",
          "name the script as it lands in the image, e.g. \"train.py\"");
    }
    String trimmed = name.trim();
    Path normalized = Path.of(trimmed).normalize();
    if (trimmed.startsWith("/") || normalized.startsWith("..")
        || !normalized.toString().equals(trimmed) || !trimmed.endsWith(".py")) {
      throw InvalidInputException.of("name", "'" + name + "' is not a relative path of a .py"
          + " file below /app", "name it like \"train.py\" or \"trainer/main.py\"");
    }
    if (source == null || source.isBlank()) {
      throw InvalidInputException.of("source", "the script " + trimmed + " is empty",
          "pass the script's text, e.g. Preprocessors.source(\"train.py\", \"\"\"\n"
              + "    print(\"hello\")\n    \"\"\")");
    }
    return new SourcePreprocessor(trimmed, source, Optional.empty(), PythonOptions.defaults());
  }

  /**
   * The host directory the paths of {@link #files}, {@link #directories} and
   * {@link #requirements} resolve against and must lie inside. Default: the working directory.
   */
  public SourcePreprocessor baseDir(Path directory) {
    return new SourcePreprocessor(name, source, Optional.of(Objects.requireNonNull(directory,
        "baseDir")), options);
  }

  /** The script's path below the path prefix, e.g. {@code train.py}. */
  public String name() {
    return name;
  }

  /** The {@code sha256:<hex>} digest of the script's text (UTF-8). */
  public String digest() {
    return "sha256:" + Sha256.hex(source.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  SourcePreprocessor withOptions(PythonOptions newOptions) {
    return new SourcePreprocessor(name, source, baseDir, newOptions);
  }

  @Override
  public BuildContext prepare() {
    Path base = baseDir.orElseGet(() -> Path.of("").toAbsolutePath());
    return PythonContextBuilder.build(base, new EntrySource.Generated(name, source), options);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof SourcePreprocessor that && name.equals(that.name)
        && source.equals(that.source) && baseDir.equals(that.baseDir)
        && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, source, baseDir, options);
  }

  /** E.g. {@code source(train.py, 12 lines, sha256:3f2a9c1d…)}: never the text. */
  @Override
  public String toString() {
    long lines = source.lines().count();
    return "source(" + name + ", " + lines + (lines == 1 ? " line" : " lines") + ", "
        + digest().substring(0, 15) + "…" + baseDir.map(d -> ", baseDir=" + d).orElse("")
        + options.summary() + ")";
  }
}

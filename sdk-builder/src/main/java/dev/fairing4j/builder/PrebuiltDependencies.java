package dev.fairing4j.builder;

import dev.fairing4j.core.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where and for what the packages of a {@code requirements.txt} are installed when they are
 * built into the image on this machine ({@link AbstractPythonPreprocessor#prebuildRequirements})
 * rather than installed by pip each time a container starts: from a local wheelhouse or a
 * package index, for the base image's Python version and platform. An immutable value; create
 * one with {@link #fromWheelhouse} or {@link #fromIndex}, each {@code withX}-style call returns a
 * copy.
 *
 * <pre>{@code
 * Preprocessors.python(Path.of("train.py"))
 *     .requirements(Path.of("requirements.txt"))
 *     .prebuildRequirements(PrebuiltDependencies.fromWheelhouse(Path.of("wheels"))
 *         .pythonVersion("3.11").platform("manylinux2014_x86_64"))
 * }</pre>
 *
 * <p>Without {@link #pythonVersion} and {@link #platform}, pip installs for the interpreter that
 * runs it ({@link #python}, default {@code /usr/bin/python3}): right when the base image has the
 * same Python (e.g. the same distribution). With them, pip installs binary wheels only
 * ({@code --only-binary=:all:}) for that version and platform, whatever this machine runs.
 *
 * @param wheelhouse a directory of wheels ({@code pip --no-index --find-links DIR}); nothing is
 *     downloaded
 * @param indexUrl a package index ({@code pip --index-url URL}), when there is no wheelhouse
 * @param pythonVersion the base image's Python, {@code major.minor}, e.g. {@code 3.11}
 * @param platform the base image's platform tag, e.g. {@code manylinux2014_x86_64}
 * @param python the interpreter whose pip installs, on this machine
 * @param cacheDirectory where installed sets are kept, one per requirements hash; empty for
 *     {@code ~/.cache/fairing4j/site-packages}
 */
public record PrebuiltDependencies(Optional<Path> wheelhouse, Optional<String> indexUrl,
    Optional<String> pythonVersion, Optional<String> platform, Path python,
    Optional<Path> cacheDirectory) {
  /** The interpreter that runs pip unless {@link #python} says otherwise. */
  public static final Path DEFAULT_PYTHON = Path.of("/usr/bin/python3");
  /** Where the packages are in the image; it is put on {@code PYTHONPATH}. */
  public static final String IMAGE_DIRECTORY = "/opt/fairing4j/site-packages";
  private static final Pattern VERSION = Pattern.compile("\\d+\\.\\d+");
  private static final Pattern PLATFORM = Pattern.compile("[a-z0-9_]+");

  /** Checks the parts. */
  public PrebuiltDependencies {
    Objects.requireNonNull(wheelhouse, "wheelhouse");
    Objects.requireNonNull(indexUrl, "indexUrl");
    Objects.requireNonNull(pythonVersion, "pythonVersion");
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(python, "python");
    Objects.requireNonNull(cacheDirectory, "cacheDirectory");
  }

  /**
   * Installs from the wheels in {@code directory} only: no index is asked, so the build needs no
   * network (and neither does the container).
   *
   * @throws InvalidInputException (field {@code wheelhouse}) when it is not a directory
   */
  public static PrebuiltDependencies fromWheelhouse(Path directory) {
    Objects.requireNonNull(directory, "wheelhouse");
    Path absolute = directory.toAbsolutePath().normalize();
    if (!Files.isDirectory(absolute)) {
      throw InvalidInputException.of("wheelhouse", "'" + absolute + "' is not a directory",
          "give the directory holding the wheels, e.g. one filled by"
              + " 'python3 -m pip wheel -r requirements.txt -w wheels'");
    }
    return new PrebuiltDependencies(Optional.of(absolute), Optional.empty(), Optional.empty(),
        Optional.empty(), DEFAULT_PYTHON, Optional.empty());
  }

  /**
   * Installs from the package index at {@code url}, e.g. {@code https://pypi.org/simple} or a
   * company mirror; the build machine needs to reach it, the container does not.
   *
   * @throws InvalidInputException (field {@code indexUrl}) when it is not an http(s) or
   *     {@code file://} URL (pip reads both), or a {@code file://} URL whose directory is missing
   */
  public static PrebuiltDependencies fromIndex(String url) {
    Objects.requireNonNull(url, "indexUrl");
    String trimmed = url.trim();
    if (trimmed.matches("file:/\\S*")) {
      Path directory;
      try {
        directory = Path.of(java.net.URI.create(trimmed));
      } catch (IllegalArgumentException e) {
        throw InvalidInputException.of("indexUrl", "'" + url + "' is not a file URL pip reads",
            "write a local index as file:///absolute/path/simple");
      }
      if (!Files.isDirectory(directory)) {
        throw InvalidInputException.of("indexUrl", "'" + url + "' names " + directory
            + ", which is not a directory", "give the directory of a local simple index, e.g."
                + " file:///opt/pypi/simple (a folder per project, each with an index.html"
                + " linking its files)");
      }
    } else if (!trimmed.matches("https?://\\S+")) {
      throw InvalidInputException.of("indexUrl", "'" + url + "' is not an http(s) or file://"
          + " URL", "give the index's simple API, e.g. https://pypi.org/simple, or a local one"
              + " as file:///opt/pypi/simple");
    }
    return new PrebuiltDependencies(Optional.empty(), Optional.of(trimmed), Optional.empty(),
        Optional.empty(), DEFAULT_PYTHON, Optional.empty());
  }

  /**
   * The base image's Python version, {@code major.minor}.
   *
   * @throws InvalidInputException (field {@code pythonVersion}) for anything else
   */
  public PrebuiltDependencies pythonVersion(String version) {
    Objects.requireNonNull(version, "pythonVersion");
    if (!VERSION.matcher(version.trim()).matches()) {
      throw InvalidInputException.of("pythonVersion", "'" + version + "' is not major.minor",
          "give the base image's Python version, e.g. \"3.11\" (python3 --version in the image)");
    }
    return new PrebuiltDependencies(wheelhouse, indexUrl, Optional.of(version.trim()), platform,
        python, cacheDirectory);
  }

  /**
   * The base image's platform tag, as pip's {@code --platform} takes it.
   *
   * @throws InvalidInputException (field {@code platform}) for anything but a tag
   */
  public PrebuiltDependencies platform(String tag) {
    Objects.requireNonNull(tag, "platform");
    if (!PLATFORM.matcher(tag.trim()).matches()) {
      throw InvalidInputException.of("platform", "'" + tag + "' is not a platform tag",
          "give a tag such as manylinux2014_x86_64, manylinux_2_28_aarch64 or linux_x86_64");
    }
    return new PrebuiltDependencies(wheelhouse, indexUrl, pythonVersion,
        Optional.of(tag.trim()), python, cacheDirectory);
  }

  /**
   * The interpreter on this machine whose pip installs.
   *
   * @throws InvalidInputException (field {@code python}) when it is not an executable file
   */
  public PrebuiltDependencies python(Path interpreter) {
    Objects.requireNonNull(interpreter, "python");
    Path absolute = interpreter.toAbsolutePath().normalize();
    if (!Files.isRegularFile(absolute) || !Files.isExecutable(absolute)) {
      throw InvalidInputException.of("python", "'" + absolute + "' is not an executable file",
          "give a Python with pip, e.g. /usr/bin/python3 (apt-get install python3-pip)");
    }
    return new PrebuiltDependencies(wheelhouse, indexUrl, pythonVersion, platform, absolute,
        cacheDirectory);
  }

  /** Where installed sets are kept between builds and JVMs. */
  public PrebuiltDependencies cacheDirectory(Path directory) {
    Objects.requireNonNull(directory, "cacheDirectory");
    return new PrebuiltDependencies(wheelhouse, indexUrl, pythonVersion, platform, python,
        Optional.of(directory.toAbsolutePath().normalize()));
  }

  @Override
  public String toString() {
    return "prebuilt(" + wheelhouse.map(w -> "wheelhouse=" + w.getFileName())
        .orElse("index=" + indexUrl.orElse("?"))
        + pythonVersion.map(v -> ", python " + v).orElse("")
        + platform.map(p -> ", " + p).orElse("") + ")";
  }
}

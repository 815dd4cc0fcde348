package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.builder.PrebuiltDependencies;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the python, notebook and git preprocessors share: which files go along with the entry
 * point, where they land, how the entry point is started and whether requirements are installed.
 * An immutable value; each {@code withX} returns a copy, and checks its own argument at once (the
 * file system is checked later, by {@link PythonContextBuilder}).
 *
 * @param files extra files, relative to the base directory or absolute inside it
 * @param directories extra directories, copied recursively
 * @param pathPrefix the container directory the base directory maps to; also the working directory
 * @param outputs files placed at explicit container paths
 * @param command the user's command, replacing the default launcher
 * @param launcher how the entry point is started when no command is given
 * @param launcherOptions options for the launcher, e.g. {@code --nproc_per_node=2} for torchrun
 * @param args arguments appended to the command
 * @param requirements a requirements.txt installed when the container starts
 * @param preinstalled true when the base image already holds the requirements
 * @param env environment variables baked into the image
 * @param prebuilt install the requirements on this machine into the image, not at start
 */
public record PythonOptions(List<Path> files, List<Path> directories, String pathPrefix,
    List<OutputMapping> outputs, Optional<List<String>> command, Launcher launcher,
    List<String> launcherOptions, List<String> args, Optional<Path> requirements,
    boolean preinstalled, SortedMap<String, String> env,
    Optional<PrebuiltDependencies> prebuilt) {

  /** How the default command starts the entry point. */
  public enum Launcher {
    /** {@code python -u <entry>}. */
    PYTHON,
    /** {@code torchrun <options> <entry>}; torchrun reads the PET_* variables the operator sets. */
    TORCHRUN
  }

  /** A file that must land at an explicit container path. */
  public record OutputMapping(Path source, String containerPath) {
    /** Checks the parts. */
    public OutputMapping {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(containerPath, "containerPath");
    }
  }

  private static final PythonOptions DEFAULTS = new PythonOptions(List.of(), List.of(),
      BuildContext.DEFAULT_WORKING_DIR, List.of(), Optional.empty(), Launcher.PYTHON, List.of(),
      List.of(), Optional.empty(), false, new TreeMap<>(), Optional.empty());

  /** Copies every collection, so the value cannot change after construction. */
  public PythonOptions {
    files = List.copyOf(files);
    directories = List.copyOf(directories);
    outputs = List.copyOf(outputs);
    command = command.map(List::copyOf);
    launcherOptions = List.copyOf(launcherOptions);
    args = List.copyOf(args);
    env = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(env));
  }

  /** No extra files, prefix {@code /app}, {@code python -u}, no requirements. */
  public static PythonOptions defaults() {
    return DEFAULTS;
  }

  /** Adds extra files. */
  public PythonOptions withFiles(Path... more) {
    return new PythonOptions(append(files, "files", more), directories, pathPrefix, outputs,
        command, launcher, launcherOptions, args, requirements, preinstalled, env, prebuilt);
  }

  /** Adds extra directories. */
  public PythonOptions withDirectories(Path... more) {
    return new PythonOptions(files, append(directories, "directories", more), pathPrefix, outputs,
        command, launcher, launcherOptions, args, requirements, preinstalled, env, prebuilt);
  }

  /** Sets the container directory the base directory maps to. */
  public PythonOptions withPathPrefix(String prefix) {
    return new PythonOptions(files, directories,
        ContainerPaths.checkDirectory("pathPrefix", prefix), outputs, command, launcher,
        launcherOptions, args, requirements, preinstalled, env, prebuilt);
  }

  /** Adds an explicit mapping of {@code source} to {@code containerPath}. */
  public PythonOptions withOutput(Path source, String containerPath) {
    Objects.requireNonNull(source, "output source");
    List<OutputMapping> copy = new ArrayList<>(outputs);
    copy.add(new OutputMapping(source, ContainerPaths.checkFile("output", containerPath)));
    return new PythonOptions(files, directories, pathPrefix, copy, command, launcher,
        launcherOptions, args, requirements, preinstalled, env, prebuilt);
  }

  /** Replaces the default launcher with {@code newCommand}. */
  public PythonOptions withCommand(List<String> newCommand) {
    Objects.requireNonNull(newCommand, "command");
    if (newCommand.isEmpty() || newCommand.stream().anyMatch(Objects::isNull)
        || newCommand.get(0).isBlank()) {
      throw InvalidInputException.of("command", "must be a non-empty list without nulls, starting"
          + " with the program", "pass e.g. List.of(\"python3\", \"-u\", \"/app/train.py\")");
    }
    return new PythonOptions(files, directories, pathPrefix, outputs, Optional.of(newCommand),
        launcher, launcherOptions, args, requirements, preinstalled, env, prebuilt);
  }

  /** Starts the entry point with torchrun and {@code options}. */
  public PythonOptions withTorchrun(String... options) {
    return new PythonOptions(files, directories, pathPrefix, outputs, command, Launcher.TORCHRUN,
        strings("torchrun options", options), args, requirements, preinstalled, env, prebuilt);
  }

  /** Appends arguments to the command. */
  public PythonOptions withArgs(String... more) {
    List<String> copy = new ArrayList<>(args);
    copy.addAll(strings("args", more));
    return new PythonOptions(files, directories, pathPrefix, outputs, command, launcher,
        launcherOptions, copy, requirements, preinstalled, env, prebuilt);
  }

  /** Installs {@code requirementsTxt} when the container starts. */
  public PythonOptions withRequirements(Path requirementsTxt) {
    Objects.requireNonNull(requirementsTxt, "requirements");
    return new PythonOptions(files, directories, pathPrefix, outputs, command, launcher,
        launcherOptions, args, Optional.of(requirementsTxt), false, env, prebuilt);
  }

  /** Installs the requirements on this machine into the image's requirements layer. */
  public PythonOptions withPrebuilt(PrebuiltDependencies how) {
    Objects.requireNonNull(how, "prebuildRequirements");
    return new PythonOptions(files, directories, pathPrefix, outputs, command, launcher,
        launcherOptions, args, requirements, false, env, Optional.of(how));
  }

  /** Ships requirements.txt but installs nothing: the base image already has the packages. */
  public PythonOptions withPreinstalled() {
    return new PythonOptions(files, directories, pathPrefix, outputs, command, launcher,
        launcherOptions, args, requirements, true, env, Optional.empty());
  }

  /** Adds or replaces an environment variable. */
  public PythonOptions withEnv(String name, String value) {
    Validators.requireText("env name", name);
    Objects.requireNonNull(value, "env value");
    if (name.contains("=")) {
      throw InvalidInputException.of("env name", "'" + name + "' contains '='",
          "pass the name and the value separately: env(\"NAME\", \"value\")");
    }
    SortedMap<String, String> copy = new TreeMap<>(env);
    copy.put(name, value);
    return new PythonOptions(files, directories, pathPrefix, outputs, command, launcher,
        launcherOptions, args, requirements, preinstalled, copy, prebuilt);
  }

  /** A few words for {@code toString()}: only what differs from the defaults. */
  public String summary() {
    StringBuilder text = new StringBuilder();
    if (!files.isEmpty()) {
      text.append(", files=").append(files.size());
    }
    if (!directories.isEmpty()) {
      text.append(", directories=").append(directories.size());
    }
    if (!pathPrefix.equals(BuildContext.DEFAULT_WORKING_DIR)) {
      text.append(", prefix=").append(pathPrefix);
    }
    if (!outputs.isEmpty()) {
      text.append(", outputs=").append(outputs.size());
    }
    command.ifPresent(c -> text.append(", command=").append(String.join(" ", c)));
    if (launcher == Launcher.TORCHRUN) {
      text.append(", torchrun");
    }
    if (!args.isEmpty()) {
      text.append(", args=").append(args.size());
    }
    requirements.ifPresent(r -> text.append(", requirements=").append(r.getFileName())
        .append(preinstalled ? " (preinstalled)" : "")
        .append(prebuilt.map(how -> " (" + how + ")").orElse("")));
    if (!env.isEmpty()) {
      text.append(", env=").append(env.keySet());
    }
    return text.toString();
  }

  private static List<Path> append(List<Path> current, String field, Path... more) {
    Objects.requireNonNull(more, field);
    List<Path> copy = new ArrayList<>(current);
    for (Path path : more) {
      if (path == null) {
        throw InvalidInputException.of(field, "contains null", "pass only existing paths");
      }
      copy.add(path);
    }
    return copy;
  }

  private static List<String> strings(String field, String... values) {
    Objects.requireNonNull(values, field);
    if (Arrays.stream(values).anyMatch(Objects::isNull)) {
      throw InvalidInputException.of(field, "contains null", "pass only non-null strings");
    }
    return List.of(values);
  }
}

package dev.fairing4j.core;

import dev.fairing4j.core.internal.Sha256;
import dev.fairing4j.core.internal.Validators;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything that goes into a training image, independent of how it is built or run: files mapped
 * to absolute container paths, the command (and its default arguments), working directory,
 * environment and image labels.
 *
 * <p>A preprocessor produces it; an image builder turns it into an image; the local cluster runs it
 * directly. It is an immutable value: every {@code withX} returns a new context. Its
 * {@link #digest()} covers paths, contents, layers, modes, command, working directory, environment
 * and labels, and nothing else (no timestamps, no source paths, no insertion order), so the same
 * code gives the same digest and hence the same image tag on any machine.
 */
public final class BuildContext {
  /** The working directory and path prefix when a preprocessor sets none. */
  public static final String DEFAULT_WORKING_DIR = "/app";

  private static final BuildContext EMPTY = new BuildContext(new TreeMap<>(), List.of(),
      List.of(), DEFAULT_WORKING_DIR, new TreeMap<>(), new TreeMap<>());

  private final SortedMap<String, ContextFile> files;
  private final List<String> command;
  private final List<String> args;
  private final String workingDir;
  private final SortedMap<String, String> env;
  private final SortedMap<String, String> labels;
  private volatile String digest;

  private BuildContext(SortedMap<String, ContextFile> files, List<String> command,
      List<String> args, String workingDir, SortedMap<String, String> env,
      SortedMap<String, String> labels) {
    this.files = Collections.unmodifiableSortedMap(files);
    this.command = List.copyOf(command);
    this.args = List.copyOf(args);
    this.workingDir = workingDir;
    this.env = Collections.unmodifiableSortedMap(env);
    this.labels = Collections.unmodifiableSortedMap(labels);
  }

  /** A context with no files, no command, working directory {@code /app}. */
  public static BuildContext empty() {
    return EMPTY;
  }

  /**
   * Adds or replaces the file at {@code containerPath}, an absolute POSIX path such as
   * {@code /app/train.py}.
   */
  public BuildContext withFile(String containerPath, ContextFile file) {
    Objects.requireNonNull(file, "file");
    SortedMap<String, ContextFile> copy = new TreeMap<>(files);
    copy.put(checkAbsolute("containerPath", containerPath), file);
    return new BuildContext(copy, command, args, workingDir, env, labels);
  }

  /** The command the container runs (its entrypoint), e.g. {@code [python, -u, /app/train.py]}. */
  public BuildContext withCommand(List<String> newCommand) {
    Objects.requireNonNull(newCommand, "command");
    newCommand.forEach(part -> Objects.requireNonNull(part, "command element"));
    return new BuildContext(new TreeMap<>(files), newCommand, args, workingDir,
        new TreeMap<>(env), new TreeMap<>(labels));
  }

  /**
   * The command's default arguments (a Dockerfile's {@code CMD}): what runs after the command,
   * or alone when the command is empty (then after the base image's entrypoint). Arguments a
   * deployer sets replace them, as a pod's {@code args} replace an image's {@code CMD}. Empty
   * unless a builder that reads a Dockerfile set them.
   */
  public BuildContext withArgs(List<String> newArgs) {
    Objects.requireNonNull(newArgs, "args");
    newArgs.forEach(part -> Objects.requireNonNull(part, "args element"));
    return new BuildContext(new TreeMap<>(files), command, newArgs, workingDir,
        new TreeMap<>(env), new TreeMap<>(labels));
  }

  /** The working directory, an absolute container path. */
  public BuildContext withWorkingDir(String dir) {
    return new BuildContext(new TreeMap<>(files), command, args,
        checkAbsolute("workingDir", dir), new TreeMap<>(env), new TreeMap<>(labels));
  }

  /** Adds or replaces one environment variable baked into the image. */
  public BuildContext withEnv(String name, String value) {
    Validators.requireText("env name", name);
    SortedMap<String, String> copy = new TreeMap<>(env);
    copy.put(name, Objects.requireNonNull(value, "env value"));
    return new BuildContext(new TreeMap<>(files), command, args, workingDir, copy,
        new TreeMap<>(labels));
  }

  /** Adds or replaces one image label, e.g. {@code org.opencontainers.image.revision}. */
  public BuildContext withLabel(String name, String value) {
    Validators.requireText("label name", name);
    SortedMap<String, String> copy = new TreeMap<>(labels);
    copy.put(name, Objects.requireNonNull(value, "label value"));
    return new BuildContext(new TreeMap<>(files), command, args, workingDir, new TreeMap<>(env),
        copy);
  }

  /** Files by absolute container path, sorted by path. */
  public SortedMap<String, ContextFile> files() {
    return files;
  }

  /** The files of one layer, sorted by path. */
  public SortedMap<String, ContextFile> files(Layer layer) {
    SortedMap<String, ContextFile> selected = new TreeMap<>();
    files.forEach((path, file) -> {
      if (file.layer() == layer) {
        selected.put(path, file);
      }
    });
    return Collections.unmodifiableSortedMap(selected);
  }

  /** The container command; empty when the base image's own entrypoint should run. */
  public List<String> command() {
    return command;
  }

  /** The command's default arguments (an image's {@code CMD}); usually empty. */
  public List<String> args() {
    return args;
  }

  /** The container working directory. */
  public String workingDir() {
    return workingDir;
  }

  /** Environment baked into the image, sorted by name. */
  public SortedMap<String, String> env() {
    return env;
  }

  /** Image labels, sorted by name. */
  public SortedMap<String, String> labels() {
    return labels;
  }

  /**
   * {@code sha256:<hex>} over the canonical form of this context: each file's path, layer, mode and
   * content hash in path order, then command, arguments, working directory, environment and
   * labels. Reads
   * every file once and remembers the result.
   */
  public String digest() {
    String value = digest;
    if (value == null) {
      MessageDigest md = Sha256.newDigest();
      for (Map.Entry<String, ContextFile> entry : files.entrySet()) {
        ContextFile file = entry.getValue();
        field(md, "file", entry.getKey());
        field(md, "layer", file.layer().name());
        field(md, "mode", file.isExecutable() ? "755" : "644");
        field(md, "sha256", file.sha256());
      }
      for (String part : command) {
        field(md, "command", part);
      }
      // Only present when set, so the digests of contexts without them stay what they were.
      for (String part : args) {
        field(md, "arg", part);
      }
      field(md, "workdir", workingDir);
      env.forEach((k, v) -> field(md, "env", k + "=" + v));
      labels.forEach((k, v) -> field(md, "label", k + "=" + v));
      value = "sha256:" + Sha256.hex(md);
      digest = value;
    }
    return value;
  }

  /**
   * The image tag a build of this context pushes by default: the first 16 hex digits of
   * {@link #digest()}. {@code dryRun()} shows it; {@code run()} then pins the pushed digest.
   */
  public String contentTag() {
    return digest().substring("sha256:".length(), "sha256:".length() + 16);
  }

  private static void field(MessageDigest md, String name, String value) {
    // Length-prefixed, so no two different contexts can serialise to the same bytes.
    byte[] bytes = (name + ":" + value).getBytes(StandardCharsets.UTF_8);
    md.update((bytes.length + ";").getBytes(StandardCharsets.US_ASCII));
    md.update(bytes);
  }

  private static String checkAbsolute(String field, String path) {
    Validators.requireText(field, path);
    if (!path.startsWith("/") || path.contains("\\") || path.contains("/../")
        || path.endsWith("/..") || path.contains("//")) {
      throw InvalidInputException.of(field, "'" + path + "' is not an absolute POSIX path",
          "use a path like /app/train.py, without '..' or backslashes");
    }
    return path;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof BuildContext that && files.equals(that.files)
        && command.equals(that.command) && args.equals(that.args)
        && workingDir.equals(that.workingDir)
        && env.equals(that.env) && labels.equals(that.labels);
  }

  @Override
  public int hashCode() {
    return Objects.hash(files, command, args, workingDir, env, labels);
  }

  @Override
  public String toString() {
    return "BuildContext[" + files.size() + " files, workingDir=" + workingDir + ", command="
        + String.join(" ", command) + (args.isEmpty() ? "" : ", args=" + String.join(" ", args))
        + "]";
  }
}

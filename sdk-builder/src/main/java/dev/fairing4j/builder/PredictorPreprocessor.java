package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.preprocess.ContainerPaths;
import dev.fairing4j.builder.internal.preprocess.EntrySource;
import dev.fairing4j.builder.internal.preprocess.ModelServer;
import dev.fairing4j.builder.internal.preprocess.PredictorSource;
import dev.fairing4j.builder.internal.preprocess.PythonContextBuilder;
import dev.fairing4j.builder.internal.preprocess.PythonOptions;
import dev.fairing4j.builder.internal.preprocess.SourceFiles;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A model's predictor, the Python file a Fairing user wrote for its serving deployers: a class
 * that loads the model once and answers {@code predict(instances)}, or module-level
 * {@code load()} and {@code predict(instances)} functions. The image runs fairing4j's model
 * server (standard library only) on port {@value ModelServer#DEFAULT_PORT}, which imports the
 * file and answers KServe's V1 protocol ({@code GET /v1/models/<name>} for readiness,
 * {@code POST /v1/models/<name>:predict} with {@code {"instances": [...]}}) and the whole
 * required REST API of the Open Inference Protocol (V2: server and model metadata, health,
 * {@code /v2/models/<name>[/versions/<v>]/infer} with flat or nested tensors). Create one with
 * {@link Preprocessors#predictor(Path)}; it is an immutable value.
 *
 * <pre>{@code
 * class MnistModel:
 *     def load(self):                      # once, before the endpoint reports ready
 *         self.net = torch.jit.load("/opt/mnist/models/mnist_cnn.pt")
 *     def predict(self, instances):        # a list in, a list (or tensor) out
 *         return self.net(torch.tensor(instances)).argmax(1)
 * }</pre>
 *
 * <p>A file written for KServe's Python SDK (a {@code kserve.Model} subclass with {@code load},
 * {@code preprocess}, {@code predict(payload, headers)}, {@code postprocess}, sync or async,
 * usually started by {@code kserve.ModelServer().start([model])}) runs unchanged: with KServe's
 * own server where the image has the {@code kserve} package, else through fairing4j's server,
 * which stands in for {@code kserve.Model}, {@code ModelServer}, {@code InferRequest} and
 * {@code InferResponse}. The name such a file constructs its model with
 * ({@code CustomModel("custom-model")}) is the model name, unless {@link #modelName} sets it
 * (then the file should construct it with {@code args.model_name}).
 *
 * <p>The file's directory is the base: sibling modules, {@link #files}, {@link #directories} and
 * {@link #requirements} go with it as they would with a training script. An error in
 * {@code predict} answers 500 with its message (the traceback goes to the log); a predictor that
 * fails to load keeps the endpoint not ready, and its readiness answer says why.
 */
public final class PredictorPreprocessor
    extends AbstractPythonPreprocessor<PredictorPreprocessor> {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern MODEL_NAME = Pattern.compile("[a-z0-9]([a-z0-9._-]*[a-z0-9])?");

  private final Path file;
  private final Optional<Path> baseDir;
  private final Optional<String> className;
  private final Optional<String> modelName;

  PredictorPreprocessor(Path file, Optional<Path> baseDir, Optional<String> className,
      Optional<String> modelName, PythonOptions options) {
    super(options);
    this.file = Objects.requireNonNull(file, "predictor").toAbsolutePath().normalize();
    this.baseDir = baseDir.map(dir -> dir.toAbsolutePath().normalize());
    this.className = className;
    this.modelName = modelName;
  }

  /**
   * The class whose {@code predict} answers; needed only when the file defines several classes
   * with a {@code predict} method. Default: the one class that has one, else the module's
   * {@code predict} function.
   *
   * @throws InvalidInputException when {@code name} is not a Python identifier
   */
  public PredictorPreprocessor className(String name) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw InvalidInputException.of("className", "'" + name + "' is not a Python class name",
          "name the class as the file defines it, e.g. \"MnistModel\"");
    }
    return new PredictorPreprocessor(file, baseDir, Optional.of(name), modelName, options);
  }

  /**
   * The name the model is served under, in {@code /v1/models/<name>:predict}. Default: the
   * container's {@code MODEL_NAME}, else the file's name without {@code .py}.
   *
   * @throws InvalidInputException for a name that is not lower-case letters, digits, '.', '-'
   *     and '_', starting and ending with a letter or digit
   */
  public PredictorPreprocessor modelName(String name) {
    if (name == null || !MODEL_NAME.matcher(name).matches()) {
      throw InvalidInputException.of("modelName", "'" + name + "' cannot name a model in a URL",
          "use lower-case letters, digits, '.', '-' and '_', e.g. \"mnist\"");
    }
    return new PredictorPreprocessor(file, baseDir, className, Optional.of(name), options);
  }

  /**
   * The host directory that maps to the path prefix; the predictor and every file must lie
   * inside it. Default: the predictor's directory.
   */
  public PredictorPreprocessor baseDir(Path directory) {
    return new PredictorPreprocessor(file, Optional.of(Objects.requireNonNull(directory,
        "baseDir")), className, modelName, options);
  }

  /** The predictor file, as an absolute path. */
  public Path file() {
    return file;
  }

  /** The class named with {@link #className}, if any. */
  public Optional<String> className() {
    return className;
  }

  /** The model name set with {@link #modelName}, if any. */
  public Optional<String> modelName() {
    return modelName;
  }

  @Override
  PredictorPreprocessor withOptions(PythonOptions newOptions) {
    return new PredictorPreprocessor(file, baseDir, className, modelName, newOptions);
  }

  /**
   * {@inheritDoc}
   *
   * @throws InvalidInputException (field {@code predictor}) for a file that does not exist, is
   *     not a {@code .py} file or lies outside the base directory; (field {@code torchrun}) when
   *     torchrun was asked for: a model server is one process
   */
  @Override
  public BuildContext prepare() {
    Path cwd = Path.of("").toAbsolutePath();
    SourceFiles.requireReadableFile("predictor", file, cwd);
    if (!file.getFileName().toString().endsWith(".py")) {
      throw InvalidInputException.of("predictor", "'" + file + "' is not a .py file",
          "give the Python file that defines the predictor class, e.g. predictor.py");
    }
    if (options.launcher() == PythonOptions.Launcher.TORCHRUN) {
      throw InvalidInputException.of("torchrun", "a predictor is served by one process",
          "drop .torchrun(..): it starts training workers, not a model server");
    }
    Path base = baseDir.orElseGet(file::getParent);
    SourceFiles.requireInside("predictor", file, base);
    PredictorSource source = PredictorSource.of(read());
    className.ifPresent(name -> requireClass(source, name));
    Optional<String> served = modelName.or(() -> source.kserve() ? source.literalName()
        : Optional.empty());
    if (source.kserve() && modelName.isPresent() && source.literalName().isPresent()
        && !source.literalName().get().equals(modelName.get())) {
      throw InvalidInputException.of("modelName", "'" + modelName.get() + "' differs from '"
          + source.literalName().get() + "', the name " + file.getFileName() + " constructs its"
          + " kserve model with, which is the name KServe's server serves", "drop"
          + " .modelName(..), or construct the model with the name from the command line:"
          + " " + source.kserveModels().get(0) + "(args.model_name)");
    }
    String prefix = options.pathPrefix();
    String predictorPath = ContainerPaths.join(prefix, base.relativize(file));
    List<String> serverArgs = new ArrayList<>(List.of("--predictor", predictorPath));
    className.ifPresent(name -> serverArgs.addAll(List.of("--class", name)));
    served.ifPresent(name -> serverArgs.addAll(List.of("--model_name", name)));
    BuildContext context = PythonContextBuilder.build(base, new EntrySource.Generated(
        ModelServer.RELATIVE_PATH, ModelServer.script()), options.withFiles(file), entryPath -> {
          List<String> command = new ArrayList<>(PythonContextBuilder.defaultCommand(options,
              entryPath));
          command.addAll(serverArgs);
          return command;
        });
    if (source.kserve()) {
      // Imported only where the image has no kserve package of its own.
      context = context.withFile(ContainerPaths.join(prefix, Path.of(
          ModelServer.KSERVE_RELATIVE_PATH)), ContextFile.ofText(ModelServer.kserveScript()));
    }
    return context;
  }

  private String read() {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | java.io.UncheckedIOException e) {
      throw InvalidInputException.of("predictor", "cannot read " + file + ": " + e.getMessage(),
          "give a readable UTF-8 Python file");
    }
  }

  /** A class named but not defined is a typo the server would find only in the container. */
  private void requireClass(PredictorSource source, String name) {
    List<String> defined = source.classes();
    if (!defined.contains(name)) {
      throw InvalidInputException.of("className", file.getFileName() + " defines no class '"
          + name + "' at its top level (it defines " + (defined.isEmpty() ? "none" : String.join(
          ", ", defined)) + ")", "name one of its classes, or define " + name + " with a"
          + " predict(self, instances) method");
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof PredictorPreprocessor that && file.equals(that.file)
        && baseDir.equals(that.baseDir) && className.equals(that.className)
        && modelName.equals(that.modelName) && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(file, baseDir, className, modelName, options);
  }

  /** E.g. {@code predictor(mnist_predictor.py, class=MnistModel, model=mnist)}. */
  @Override
  public String toString() {
    return "predictor(" + file.getFileName() + className.map(c -> ", class=" + c).orElse("")
        + modelName.map(m -> ", model=" + m).orElse("") + baseDir.map(d -> ", baseDir=" + d)
        .orElse("") + options.summary() + ")";
  }
}

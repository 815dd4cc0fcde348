package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.preprocess.PythonOptions;
import dev.fairing4j.core.Preprocessor;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The options every Python preprocessor shares (plain script, notebook, git checkout): extra files
 * and directories, where they land, how the entry point starts and whether requirements are
 * installed. Each call returns a new preprocessor; the receiver never changes, so re-running a
 * notebook cell never piles up files.
 *
 * <p>Paths given to {@link #files}, {@link #directories}, {@link #output} and
 * {@link #requirements} resolve against the base directory when relative (for a script or a
 * notebook: its own directory unless set otherwise; for git: the checkout or its subdirectory).
 * Everything is checked when {@link #prepare()} runs, before anything is built or sent.
 *
 * @param <T> the concrete preprocessor, so fluent calls keep their type
 */
public abstract sealed class AbstractPythonPreprocessor<T extends AbstractPythonPreprocessor<T>>
    implements Preprocessor permits PythonPreprocessor, SourcePreprocessor, FunctionPreprocessor,
    PredictorPreprocessor, NotebookPreprocessor, GitPreprocessor {

  final PythonOptions options;

  AbstractPythonPreprocessor(PythonOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  abstract T withOptions(PythonOptions newOptions);

  /** Adds files that go along with the entry point, e.g. {@code Path.of("model.py")}. */
  public T files(Path... files) {
    return withOptions(options.withFiles(files));
  }

  /**
   * Adds directories, copied recursively with their layout (skipping {@code .git},
   * {@code __pycache__}, {@code .ipynb_checkpoints} and {@code *.pyc}).
   */
  public T directories(Path... directories) {
    return withOptions(options.withDirectories(directories));
  }

  /**
   * The container directory the base directory maps to, and the working directory; default
   * {@code /app}.
   */
  public T pathPrefix(String containerDirectory) {
    return withOptions(options.withPathPrefix(containerDirectory));
  }

  /** Places {@code source} at an explicit container path such as {@code /etc/train/config.yaml}. */
  public T output(Path source, String containerPath) {
    return withOptions(options.withOutput(source, containerPath));
  }

  /**
   * Replaces the default command ({@code python -u /app/<entry>}); {@link #args} still follow it.
   */
  public T command(List<String> command) {
    return withOptions(options.withCommand(command));
  }

  /** Same as {@link #command(List)}. */
  public T command(String... command) {
    Objects.requireNonNull(command, "command");
    return command(List.of(command));
  }

  /**
   * Starts the entry point with {@code torchrun <options> /app/<entry>} instead of python; torchrun
   * reads the {@code PET_*} variables the Kubeflow PyTorch operator sets.
   */
  public T torchrun(String... torchrunOptions) {
    return withOptions(options.withTorchrun(torchrunOptions));
  }

  /** Appends arguments to the command, e.g. {@code args("--epochs", "3")}. */
  public T args(String... args) {
    return withOptions(options.withArgs(args));
  }

  /**
   * Installs this {@code requirements.txt} when the container starts, before the entry point:
   * {@code pip install --target /tmp/fairing4j/site-packages -r requirements.txt}, a directory put
   * first on {@code PYTHONPATH}; this works where the system Python refuses installs (PEP 668).
   * The file goes into its own image layer, so code changes do not re-upload it. The wrapper uses
   * {@code $FAIRING4J_PYTHON}, else {@code python}, else {@code python3}; set
   * {@code FAIRING4J_SITE_PACKAGES} to install elsewhere.
   */
  public T requirements(Path requirementsTxt) {
    return withOptions(options.withRequirements(requirementsTxt));
  }

  /**
   * Installs the {@link #requirements} on this machine, when the context is prepared, into the
   * image's requirements layer at {@value PrebuiltDependencies#IMAGE_DIRECTORY} (put on
   * {@code PYTHONPATH}), instead of with pip each time a container starts: the container then
   * starts without network and without the install's time, restarts included. pip runs with
   * {@code --target} for the base image's Python and platform as {@code how} describes, from a
   * local wheelhouse or an index; the installed set is kept in a cache named by the hash of the
   * requirements file, the wheelhouse's listing and {@code how}, so later builds reuse it and
   * upload nothing new for it. The requirements file goes along as
   * {@code <dir>/.fairing4j-requirements.txt}, documenting what is installed.
   *
   * <p>Without {@code .pyc} files ({@code pip --no-compile}), so the same inputs give the same
   * layer on every machine; Python compiles what a job imports when it first runs.
   *
   * @throws dev.fairing4j.core.InvalidInputException (field {@code requirements}) at
   *     {@code prepare()} when no requirements file is set; a failing pip is a
   *     {@code FairingException} with its output
   */
  public T prebuildRequirements(PrebuiltDependencies how) {
    return withOptions(options.withPrebuilt(how));
  }

  /**
   * Opts out of the install: the requirements file is still shipped (so the image documents it),
   * but the base image is trusted to hold the packages already.
   */
  public T preinstalled() {
    return withOptions(options.withPreinstalled());
  }

  /** Bakes an environment variable into the image. */
  public T env(String name, String value) {
    return withOptions(options.withEnv(name, value));
  }
}

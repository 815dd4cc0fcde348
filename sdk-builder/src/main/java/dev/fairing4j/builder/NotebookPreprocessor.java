package dev.fairing4j.builder;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.builder.internal.preprocess.ContainerPaths;
import dev.fairing4j.builder.internal.preprocess.EntrySource;
import dev.fairing4j.builder.internal.preprocess.NotebookConverter;
import dev.fairing4j.builder.internal.preprocess.NotebookRunner;
import dev.fairing4j.builder.internal.preprocess.PythonContextBuilder;
import dev.fairing4j.builder.internal.preprocess.PythonOptions;
import dev.fairing4j.builder.internal.preprocess.SourceFiles;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Jupyter notebook as training code, in one of two ways.
 *
 * <p>By default its code cells become one script, {@code /app/<name>.py}, run like a
 * {@linkplain PythonPreprocessor Python script}: IPython magics ({@code %}, {@code %%} cells) and
 * shell escapes ({@code !}) are removed, cells tagged {@code skip} are left out, and
 * {@code # --- cell N ---} comments keep tracebacks traceable. {@link #script()} shows the result
 * and what was removed; {@link #prepare()} also logs it.
 *
 * <p>With {@link #fullNotebook()} the notebook runs as it is, magics and all, cell by cell in a
 * Jupyter kernel: {@code python -u /app/.fairing4j/run_notebook.py /app/<name>.ipynb
 * <outputDir>/<name>.ipynb}, a small runner shipped in the image that uses papermill when the
 * image has it and nbclient (what papermill drives; Debian's {@code python3-nbclient}) otherwise.
 * It streams what the cells print to the job's log, injects {@link #parameter}s after the cell
 * tagged {@code parameters} as papermill does, and writes the executed notebook to
 * {@link #outputDir} (default {@code /app/output}) even when a cell fails, where a mounted volume
 * can keep it. The image needs nbformat and nbclient (or papermill) and the notebook's kernel
 * ({@code ipykernel} for Python).
 */
public final class NotebookPreprocessor extends AbstractPythonPreprocessor<NotebookPreprocessor> {
  private static final Logger LOG = LoggerFactory.getLogger(NotebookPreprocessor.class);

  private final Path notebook;
  private final Optional<Path> baseDir;
  private final boolean full;
  private final Optional<String> outputDir;
  private final Optional<String> kernel;
  private final SortedMap<String, String> parameters;

  NotebookPreprocessor(Path notebook, Optional<Path> baseDir, boolean full,
      Optional<String> outputDir, Optional<String> kernel, SortedMap<String, String> parameters,
      PythonOptions options) {
    super(options);
    this.notebook = Objects.requireNonNull(notebook, "notebook").toAbsolutePath().normalize();
    this.baseDir = baseDir.map(dir -> dir.toAbsolutePath().normalize());
    this.full = full;
    this.outputDir = outputDir;
    this.kernel = kernel;
    this.parameters = Collections.unmodifiableSortedMap(new TreeMap<>(parameters));
  }

  /** The host directory that maps to the path prefix; default: the notebook's directory. */
  public NotebookPreprocessor baseDir(Path directory) {
    return new NotebookPreprocessor(notebook, Optional.of(Objects.requireNonNull(directory,
        "baseDir")), full, outputDir, kernel, parameters, options);
  }

  /** Runs the whole notebook in a Jupyter kernel instead of converting its code cells. */
  public NotebookPreprocessor fullNotebook() {
    return new NotebookPreprocessor(notebook, baseDir, true, outputDir, kernel, parameters,
        options);
  }

  /**
   * Where the executed notebook is written (full-notebook mode); default
   * {@code <pathPrefix>/output}, e.g. {@code /app/output}.
   */
  public NotebookPreprocessor outputDir(String containerDirectory) {
    return new NotebookPreprocessor(notebook, baseDir, full,
        Optional.of(ContainerPaths.checkDirectory("outputDir", containerDirectory)), kernel,
        parameters,
        options);
  }

  /** The Jupyter kernel the notebook runs in ({@code -k}); default: the notebook's own. */
  public NotebookPreprocessor kernel(String kernelName) {
    return new NotebookPreprocessor(notebook, baseDir, full, outputDir,
        Optional.of(Validators.requireText("kernel", kernelName)), parameters, options);
  }

  /**
   * A parameter ({@code -p name value}, read as papermill reads it: a number, {@code True},
   * {@code False}, {@code None} or a string) set in a cell after the notebook's cell tagged
   * {@code parameters}.
   */
  public NotebookPreprocessor parameter(String name, String value) {
    Validators.requireText("parameter name", name);
    SortedMap<String, String> copy = new TreeMap<>(parameters);
    copy.put(name, Objects.requireNonNull(value, "parameter value"));
    return new NotebookPreprocessor(notebook, baseDir, full, outputDir, kernel, copy, options);
  }

  /**
   * The script the notebook converts to, with what was removed; reads the notebook.
   *
   * @throws InvalidInputException when the file is missing or not a notebook
   */
  public NotebookScript script() {
    return NotebookConverter.convert(notebook, read());
  }

  /** The notebook file, as an absolute path. */
  public Path notebook() {
    return notebook;
  }

  @Override
  NotebookPreprocessor withOptions(PythonOptions newOptions) {
    return new NotebookPreprocessor(notebook, baseDir, full, outputDir, kernel, parameters,
        newOptions);
  }

  @Override
  public BuildContext prepare() {
    JsonNode root = read();
    Path base = baseDir.orElseGet(() -> notebook.getParent());
    String name = notebook.getFileName().toString();
    if (!full) {
      if (kernel.isPresent() || !parameters.isEmpty() || outputDir.isPresent()) {
        throw InvalidInputException.of("fullNotebook", "kernel, parameter and outputDir only"
            + " apply when the notebook runs as it is", "add .fullNotebook(), or drop them");
      }
      NotebookScript script = NotebookConverter.convert(notebook, root);
      if (!script.removed().isEmpty() || !script.skippedCells().isEmpty()) {
        LOG.info("{}: {}", name, script.summary());
      }
      String scriptName = (name.endsWith(".ipynb") ? name.substring(0, name.length() - 6) : name)
          + ".py";
      SourceFiles.requireInside("notebook", notebook, base);
      Path relative = base.relativize(notebook).resolveSibling(scriptName);
      return PythonContextBuilder.build(base,
          new EntrySource.Generated(relative.toString(), script.script()), options);
    }
    if (options.launcher() != PythonOptions.Launcher.PYTHON) {
      throw InvalidInputException.of("torchrun", "does not apply to a notebook run as it is",
          "drop .torchrun(), or convert the notebook to a script (no .fullNotebook())");
    }
    String runner = ContainerPaths.join(options.pathPrefix(),
        Path.of(".fairing4j", NotebookRunner.FILE_NAME));
    BuildContext context = PythonContextBuilder.build(base, new EntrySource.HostFile(notebook),
        options, entry -> runCommand(runner, entry));
    return context.withFile(runner, ContextFile.ofText(NotebookRunner.script()));
  }

  private List<String> runCommand(String runner, String notebookPath) {
    String dir = outputDir.orElse(options.pathPrefix().equals("/") ? "/output"
        : options.pathPrefix() + "/output");
    String outputPath = dir + (dir.equals("/") ? "" : "/")
        + notebookPath.substring(notebookPath.lastIndexOf('/') + 1);
    // python, as for scripts: a local cluster runs it with an interpreter that has nbformat.
    List<String> command = new ArrayList<>(List.of("python", "-u", runner, notebookPath,
        outputPath));
    kernel.ifPresent(k -> command.addAll(List.of("-k", k)));
    parameters.forEach((k, v) -> command.addAll(List.of("-p", k, v)));
    return command;
  }

  private JsonNode read() {
    SourceFiles.requireReadableFile("notebook", notebook, Path.of("").toAbsolutePath());
    return NotebookConverter.read(notebook);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NotebookPreprocessor that && notebook.equals(that.notebook)
        && baseDir.equals(that.baseDir) && full == that.full && outputDir.equals(that.outputDir)
        && kernel.equals(that.kernel) && parameters.equals(that.parameters)
        && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(notebook, baseDir, full, outputDir, kernel, parameters, options);
  }

  @Override
  public String toString() {
    return (full ? "fullNotebook(" : "notebook(") + notebook.getFileName()
        + baseDir.map(d -> ", baseDir=" + d).orElse("")
        + outputDir.map(d -> ", outputDir=" + d).orElse("")
        + kernel.map(k -> ", kernel=" + k).orElse("")
        + (parameters.isEmpty() ? "" : ", parameters=" + parameters.keySet())
        + options.summary() + ")";
  }
}

package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.preprocess.PythonOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The front door to preprocessors: where a pipeline's training code comes from.
 *
 * <pre>{@code
 * Preprocessors.python(Path.of("mnist.py")).files(Path.of("model.py"))
 *     .requirements(Path.of("requirements.txt"))
 * Preprocessors.source("train.py", """
 *     print("hello from a text block")
 *     """)                                                    // the script as text
 * Preprocessors.function("""
 *     def train(lr, epochs):
 *         print(lr, epochs)
 *     """, Map.of("lr", 0.01, "epochs", 2))             // a function and its arguments
 * Preprocessors.notebook(Path.of("mnist.ipynb"))            // code cells -> one script
 * Preprocessors.fullNotebook(Path.of("mnist.ipynb"))        // run as is (nbclient or papermill)
 * Preprocessors.git("https://github.com/org/repo.git").tag("v1.0").entry("train.py")
 * }</pre>
 *
 * Each returns an immutable value: fluent calls return new objects.
 */
public final class Preprocessors {
  private Preprocessors() {}

  /** A Python script; the image runs {@code python -u /app/<entry>}. */
  public static PythonPreprocessor python(Path entry) {
    return new PythonPreprocessor(Objects.requireNonNull(entry, "entry"), Optional.empty(),
        PythonOptions.defaults());
  }

  /**
   * A Python script given as text, placed at {@code /app/<name>}; the image runs
   * {@code python -u /app/<name>}.
   *
   * @throws dev.fairing4j.core.InvalidInputException for an empty text, or a name that is not a
   *     relative {@code .py} path
   */
  public static SourcePreprocessor source(String name, String source) {
    return SourcePreprocessor.of(name, source);
  }

  /**
   * One Python function and the keyword arguments to call it with, as the Kubeflow SDK's
   * {@code CustomTrainer(func=..., func_args=...)}: the SDK writes the launcher that calls it.
   * The function is the source's last top-level {@code def} (choose another with
   * {@code .call(name)}).
   *
   * @throws dev.fairing4j.core.InvalidInputException for an empty source, one without a
   *     function, an argument the function does not take, or a value JSON cannot carry
   */
  public static FunctionPreprocessor function(String source, Map<String, ?> arguments) {
    return FunctionPreprocessor.of(source, arguments);
  }

  /** One Python function called without arguments; see {@link #function(String, Map)}. */
  public static FunctionPreprocessor function(String source) {
    return FunctionPreprocessor.of(source, Map.of());
  }

  /**
   * A model's predictor: a Python file with a class that loads the model once and answers
   * {@code predict(instances)} (or {@code load()} and {@code predict(instances)} functions),
   * served by fairing4j's model server on port 8080 with KServe's V1 and V2 protocols.
   */
  public static PredictorPreprocessor predictor(Path file) {
    return new PredictorPreprocessor(Objects.requireNonNull(file, "predictor"), Optional.empty(),
        Optional.empty(), Optional.empty(), PythonOptions.defaults());
  }

  /** A Jupyter notebook whose code cells become one script. */
  public static NotebookPreprocessor notebook(Path ipynb) {
    return new NotebookPreprocessor(Objects.requireNonNull(ipynb, "notebook"), Optional.empty(),
        false, Optional.empty(), Optional.empty(), new TreeMap<>(), PythonOptions.defaults());
  }

  /** A Jupyter notebook run as it is, cell by cell, with nbclient (or papermill). */
  public static NotebookPreprocessor fullNotebook(Path ipynb) {
    return notebook(ipynb).fullNotebook();
  }

  /** A git repository; name the script with {@code .entry("train.py")}. */
  public static GitPreprocessor git(String url) {
    return GitPreprocessor.of(url);
  }
}

package dev.fairing4j.builder;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.builder.internal.preprocess.EntrySource;
import dev.fairing4j.builder.internal.preprocess.PythonContextBuilder;
import dev.fairing4j.builder.internal.preprocess.PythonOptions;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Sha256;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The source of one Python function and the arguments to call it with, as the Kubeflow SDK's
 * {@code CustomTrainer(func=train, func_args={...})} takes them: the SDK writes the small
 * launcher ({@code <function>_main.py}: the source, then a call of the function with the
 * arguments as keyword arguments, read from JSON) and the image runs it as it would run a file.
 * Every Python option works as for {@link Preprocessors#source(String, String)} (a
 * {@link #torchrun(String...)} launcher calls the function in every process). Create one with
 * {@link Preprocessors#function(String, Map)}; it is an immutable value.
 *
 * <p>The arguments are JSON values: {@code null}, booleans, numbers, strings, lists and maps of
 * them (Python gets {@code None}, {@code True}, ints and floats, str, list, dict). A name the
 * function does not take (and it has no {@code **kwargs}) is refused at the call, as Python would
 * refuse it in the pod. {@link #toString()} shows the function, the argument names and the
 * digest, never the source or the values.
 */
public final class FunctionPreprocessor extends AbstractPythonPreprocessor<FunctionPreprocessor> {
  private static final Pattern TOP_LEVEL_DEF =
      Pattern.compile("(?m)^(?:async\\s+)?def\\s+([A-Za-z_][A-Za-z0-9_]*)\\s*\\(");

  private final String source;
  private final String function;
  private final Map<String, Object> arguments;
  private final Optional<Path> baseDir;

  private FunctionPreprocessor(String source, String function, Map<String, Object> arguments,
      Optional<Path> baseDir, PythonOptions options) {
    super(options);
    this.source = source;
    this.function = function;
    this.arguments = arguments;
    this.baseDir = baseDir.map(dir -> dir.toAbsolutePath().normalize());
  }

  /** Checks the source, finds its one function, and checks the arguments against it. */
  static FunctionPreprocessor of(String source, Map<String, ?> arguments) {
    if (source == null || source.isBlank()) {
      throw InvalidInputException.of("source", "the function's source is empty",
          "pass the text of one function, e.g. Preprocessors.function(\"\"\"\n"
              + "    def train(lr):\n        print(lr)\n    \"\"\", Map.of(\"lr\", 0.01))");
    }
    String dedented = dedent(source);
    List<String> names = new ArrayList<>();
    Matcher def = TOP_LEVEL_DEF.matcher(dedented);
    while (def.find()) {
      names.add(def.group(1));
    }
    if (names.isEmpty()) {
      throw InvalidInputException.of("source", "defines no function at its top level",
          "pass the text of one function, starting with def, e.g. def train(lr): ...");
    }
    // The last one: helpers come first, as they must in a script that calls the function.
    String chosen = names.get(names.size() - 1);
    return new FunctionPreprocessor(dedented, chosen, checked(arguments), Optional.empty(),
        PythonOptions.defaults()).checkAgainstSignature();
  }

  /**
   * Calls {@code name} instead of the source's last top-level function (helpers before it are
   * defined, not called).
   *
   * @throws InvalidInputException when the source defines no top-level function of that name
   */
  public FunctionPreprocessor call(String name) {
    Matcher def = TOP_LEVEL_DEF.matcher(source);
    List<String> names = new ArrayList<>();
    while (def.find()) {
      names.add(def.group(1));
    }
    if (name == null || !names.contains(name)) {
      throw InvalidInputException.of("call", "'" + name + "' is not a function the source"
          + " defines at its top level (it defines " + String.join(", ", names) + ")",
          "name one of those");
    }
    return new FunctionPreprocessor(source, name, arguments, baseDir, options)
        .checkAgainstSignature();
  }

  /**
   * The host directory the paths of {@link #files}, {@link #directories} and
   * {@link #requirements} resolve against. Default: the working directory.
   */
  public FunctionPreprocessor baseDir(Path directory) {
    return new FunctionPreprocessor(source, function, arguments, Optional.of(
        Objects.requireNonNull(directory, "baseDir")), options);
  }

  /** The function the launcher calls. */
  public String function() {
    return function;
  }

  /** The launcher's name below the path prefix: {@code <function>_main.py}. */
  public String scriptName() {
    return function + "_main.py";
  }

  /** The {@code sha256:<hex>} digest of the launcher the image runs. */
  public String digest() {
    return "sha256:" + Sha256.hex(script().getBytes(StandardCharsets.UTF_8));
  }

  /** The launcher: the source, then the call. */
  String script() {
    String json;
    try {
      json = Json.SORTED.writeValueAsString(arguments);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("checked arguments failed to serialize", e);
    }
    return source + (source.endsWith("\n") ? "" : "\n") + "\n\n"
        + "if __name__ == \"__main__\":\n"
        + "    import json as _fairing4j_json\n"
        + "    " + function + "(**_fairing4j_json.loads(" + pythonString(json) + "))\n";
  }

  @Override
  FunctionPreprocessor withOptions(PythonOptions newOptions) {
    return new FunctionPreprocessor(source, function, arguments, baseDir, newOptions);
  }

  @Override
  public BuildContext prepare() {
    Path base = baseDir.orElseGet(() -> Path.of("").toAbsolutePath());
    return PythonContextBuilder.build(base, new EntrySource.Generated(scriptName(), script()),
        options);
  }

  private FunctionPreprocessor checkAgainstSignature() {
    Optional<List<String>> parameters = parameters();
    if (parameters.isEmpty()) {
      return this;  // **kwargs, or a signature this reader does not follow: Python decides
    }
    for (String name : arguments.keySet()) {
      if (!parameters.get().contains(name)) {
        throw InvalidInputException.of("arguments", function + "() takes no parameter '" + name
            + "' (it takes " + (parameters.get().isEmpty() ? "none" : String.join(", ",
            parameters.get())) + ")", "check the name, or add it to the function's parameters");
      }
    }
    return this;
  }

  /** The names {@link #function} takes by keyword; empty when it takes {@code **kwargs}. */
  private Optional<List<String>> parameters() {
    Matcher def = Pattern.compile("(?m)^(?:async\\s+)?def\\s+" + Pattern.quote(function)
        + "\\s*\\(").matcher(source);
    if (!def.find()) {
      return Optional.empty();
    }
    int depth = 1;
    int at = def.end();
    StringBuilder inside = new StringBuilder();
    List<String> parts = new ArrayList<>();
    for (; at < source.length() && depth > 0; at++) {
      char c = source.charAt(at);
      if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (c == ')' || c == ']' || c == '}') {
        depth--;
      }
      if (depth == 1 && c == ',') {
        parts.add(inside.toString());
        inside.setLength(0);
      } else if (depth > 0) {
        inside.append(c);
      }
    }
    parts.add(inside.toString());
    List<String> names = new ArrayList<>();
    for (String part : parts) {
      String name = part.strip().replaceFirst("[:=].*$", "").strip();
      if (name.startsWith("**")) {
        return Optional.empty();
      }
      if (name.isEmpty() || name.equals("/") || name.startsWith("*")) {
        continue;  // markers and *args: what follows a * is still a keyword parameter
      }
      names.add(name);
    }
    return Optional.of(names);
  }

  private static Map<String, Object> checked(Map<String, ?> arguments) {
    Objects.requireNonNull(arguments, "arguments");
    Map<String, Object> copy = new TreeMap<>();
    arguments.forEach((name, value) -> {
      if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw InvalidInputException.of("arguments", "'" + name + "' is not a Python parameter"
            + " name", "use names of the function's parameters, e.g. lr or num_epochs");
      }
      copy.put(name, jsonValue(name, value));
    });
    return Collections.unmodifiableMap(copy);
  }

  private static Object jsonValue(String name, Object value) {
    if (value == null || value instanceof Boolean || value instanceof Number
        || value instanceof String) {
      if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
        throw InvalidInputException.of("arguments", name + " is " + d + ", which JSON cannot"
            + " carry", "pass a finite number, or a string the function converts");
      }
      return value;
    }
    if (value instanceof Collection<?> list) {
      List<Object> copy = new ArrayList<>();
      list.forEach(element -> copy.add(jsonValue(name, element)));
      return Collections.unmodifiableList(copy);
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((key, element) -> {
        if (!(key instanceof String text)) {
          throw InvalidInputException.of("arguments", name + " has the key " + key + ", not a"
              + " string", "use string keys: Python gets a dict of them");
        }
        copy.put(text, jsonValue(name, element));
      });
      return Collections.unmodifiableMap(copy);
    }
    throw InvalidInputException.of("arguments", name + " is a " + value.getClass().getName()
        + ", not a JSON value", "pass null, a boolean, a number, a string, or a list or map of"
        + " them");
  }

  /** {@code text} without the indent all its non-blank lines share (Python's textwrap.dedent). */
  private static String dedent(String text) {
    int common = Integer.MAX_VALUE;
    for (String line : text.split("\n", -1)) {
      if (!line.isBlank()) {
        int indent = 0;
        while (indent < line.length() && (line.charAt(indent) == ' '
            || line.charAt(indent) == '\t')) {
          indent++;
        }
        common = Math.min(common, indent);
      }
    }
    if (common == 0 || common == Integer.MAX_VALUE) {
      return text;
    }
    StringBuilder out = new StringBuilder();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      out.append(line.isBlank() ? "" : line.substring(common));
      if (i < lines.length - 1) {
        out.append('\n');
      }
    }
    return out.toString();
  }

  /** {@code text} as a Python double-quoted string literal. */
  private static String pythonString(String text) {
    StringBuilder literal = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '\\' -> literal.append("\\\\");
        case '"' -> literal.append("\\\"");
        case '\n' -> literal.append("\\n");
        case '\r' -> literal.append("\\r");
        default -> literal.append(c);
      }
    }
    return literal.append('"').toString();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FunctionPreprocessor that && source.equals(that.source)
        && function.equals(that.function) && arguments.equals(that.arguments)
        && baseDir.equals(that.baseDir) && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(source, function, arguments, baseDir, options);
  }

  /** E.g. {@code function(train(lr, epochs), sha256:3f2a9c1d…)}: never the source or values. */
  @Override
  public String toString() {
    return "function(" + function + "(" + String.join(", ", arguments.keySet()) + "), "
        + digest().substring(0, 15) + "…" + baseDir.map(d -> ", baseDir=" + d).orElse("")
        + options.summary() + ")";
  }
}

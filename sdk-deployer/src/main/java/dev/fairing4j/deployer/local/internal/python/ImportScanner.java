package dev.fairing4j.deployer.local.internal.python;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.deployer.job.internal.ServedModel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the modules a replica's Python code needs from outside the build context, cheaply: the
 * top-level (unindented) {@code import}/{@code from} lines of the entry script and of the local
 * modules it imports. Indented imports (inside {@code try}, functions, {@code if}) are optional by
 * construction and are not required.
 */
public final class ImportScanner {
  private static final Pattern IMPORT = Pattern.compile(
      "^(?:import\\s+([A-Za-z_][\\w.]*(?:\\s+as\\s+\\w+)?(?:\\s*,\\s*[A-Za-z_][\\w.]*"
          + "(?:\\s+as\\s+\\w+)?)*)|from\\s+([A-Za-z_][\\w.]*)\\s+import\\b)",
      Pattern.MULTILINE);
  private static final Set<String> PYTHON_OPTIONS_WITH_VALUE = Set.of("-W", "-X",
      "--check-hash-based-pycs");
  /**
   * The {@code kserve} modules fairing4j's model server stands in for where the image has no
   * {@code kserve} package ({@code _PROVIDED} in {@code fairing4j_kserve.py}); a predictor that
   * imports only these needs no {@code kserve}.
   */
  public static final Set<String> KSERVE_STAND_IN = Set.of("kserve", "kserve.model",
      "kserve.model_server", "kserve.model_repository", "kserve.errors", "kserve.protocol",
      "kserve.protocol.infer_type", "kserve.logging", "kserve.utils", "kserve.utils.utils",
      "kserve.constants", "kserve.constants.constants");

  private ImportScanner() {}

  /** True when {@code program} (argv[0]) is a Python interpreter: python, python3, python3.11. */
  public static boolean isPython(String program) {
    return baseName(program).matches("python[0-9.]*");
  }

  /**
   * The words a shell-form command runs ({@code [/bin/sh, -c, "python /app/train.py --lr 1"]},
   * as a Dockerfile's {@code CMD python /app/train.py} becomes), split at whitespace; any other
   * {@code argv} as it is. Only for finding the program and its script: the shell still runs the
   * string.
   */
  public static List<String> programWords(List<String> argv) {
    if (argv.size() >= 3 && baseName(argv.get(0)).matches("(ba|da)?sh")
        && argv.get(argv.size() - 2).matches("-[a-z]*c")) {
      String line = argv.get(argv.size() - 1).strip();
      if (line.startsWith("exec ")) {
        line = line.substring("exec ".length()).strip();
      }
      return line.isEmpty() ? argv : List.of(line.split("\\s+"));
    }
    return argv;
  }

  /** True when {@code program} is torchrun. */
  public static boolean isTorchrun(String program) {
    return baseName(program).equals("torchrun");
  }

  /**
   * The external top-level modules {@code argv} needs; empty when it does not run Python.
   *
   * @param workingDir the container working directory relative paths resolve against
   */
  public static Set<String> requiredModules(List<String> argv, BuildContext context,
      String workingDir) {
    Set<String> required = new LinkedHashSet<>();
    if (argv.isEmpty()) {
      return required;
    }
    String program = argv.get(0);
    // Absolute imports resolve against sys.path[0]: the script's directory, or the working
    // directory for -m and -c.
    String root = workingDir;
    Optional<String> script = Optional.empty();
    Optional<String> code = Optional.empty();
    Deque<String> pending = new ArrayDeque<>();
    if (isTorchrun(program)) {
      required.add("torch");
      script = argv.stream().skip(1).filter(a -> a.endsWith(".py")).findFirst();
    } else if (isPython(program)) {
      for (int i = 1; i < argv.size(); i++) {
        String arg = argv.get(i);
        if (arg.equals("-c") && i + 1 < argv.size()) {
          code = Optional.of(argv.get(i + 1));
          break;
        }
        if (arg.equals("-m") && i + 1 < argv.size()) {
          String module = argv.get(i + 1);
          List<String> local = localFiles(module, workingDir, context);
          if (local.isEmpty()) {
            required.add(topLevel(module));
          } else {
            pending.addAll(local);
            localFile(module.replace('.', '/') + "/__main__", workingDir, context)
                .ifPresent(pending::add);
          }
          break;
        }
        if (PYTHON_OPTIONS_WITH_VALUE.contains(arg)) {
          i++;
        } else if (!arg.startsWith("-")) {
          script = Optional.of(arg);
          break;
        }
      }
    } else {
      return required;
    }
    boolean modelServer = false;
    if (script.isPresent()) {
      String path = script.get().startsWith("/") ? script.get() : join(workingDir, script.get());
      pending.add(path);
      String dir = path.substring(0, path.lastIndexOf('/'));
      root = dir.isEmpty() ? "/" : dir;
      modelServer = baseName(path).equals(ServedModel.SERVER_FILE);
      int predictor = argv.indexOf("--predictor");
      if (modelServer && predictor >= 0 && predictor + 1 < argv.size()) {
        // The server imports the predictor by path, with the predictor's directory first on
        // sys.path: its imports are the model's, its siblings local modules.
        String file = argv.get(predictor + 1);
        String predictorPath = file.startsWith("/") ? file : join(workingDir, file);
        pending.add(predictorPath);
        String predictorDir = predictorPath.substring(0, predictorPath.lastIndexOf('/'));
        root = predictorDir.isEmpty() ? "/" : predictorDir;
      }
    }
    String searchRoot = root;
    Set<String> kserve = new LinkedHashSet<>();
    code.ifPresent(text -> scan(text, searchRoot, context, required, pending, kserve));
    Set<String> seen = new HashSet<>();
    while (!pending.isEmpty()) {
      String path = pending.poll();
      ContextFile file = context.files().get(path);
      if (seen.add(path) && file != null) {
        scan(new String(file.bytes(), StandardCharsets.UTF_8), searchRoot, context, required,
            pending, kserve);
      }
    }
    if (modelServer && KSERVE_STAND_IN.containsAll(kserve)) {
      required.remove("kserve");  // the server stands in for it where it is missing
    }
    return required;
  }

  private static void scan(String source, String root, BuildContext context,
      Set<String> required, Deque<String> pending, Set<String> kserve) {
    Matcher m = IMPORT.matcher(source);
    while (m.find()) {
      List<String> names = m.group(1) != null
          ? List.of(m.group(1).split(","))
          : List.of(m.group(2));
      for (String raw : names) {
        String name = raw.trim().split("\\s+")[0];
        if (name.isEmpty() || name.equals("__future__")) {
          continue;
        }
        List<String> local = localFiles(name, root, context);
        if (local.isEmpty()) {
          required.add(topLevel(name));
          if (topLevel(name).equals("kserve")) {
            kserve.add(name);
          }
        } else {
          pending.addAll(local);
        }
      }
    }
  }

  /**
   * The context files importing {@code module} loads from {@code root}: each package's
   * {@code __init__.py} along the dotted path, and the module itself; empty when its top-level
   * name is not in the context.
   */
  private static List<String> localFiles(String module, String root, BuildContext context) {
    List<String> files = new ArrayList<>();
    String[] parts = module.split("\\.");
    StringBuilder prefix = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      prefix.append(i == 0 ? "" : "/").append(parts[i]);
      Optional<String> found = localFile(prefix + "/__init__", root, context)
          .or(() -> localFile(prefix.toString(), root, context));
      if (found.isEmpty()) {
        break;
      }
      files.add(found.get());
    }
    return files;
  }

  private static Optional<String> localFile(String relative, String dir, BuildContext ctx) {
    String path = join(dir, relative + ".py");
    return ctx.files().containsKey(path) ? Optional.of(path) : Optional.empty();
  }

  private static String topLevel(String module) {
    int dot = module.indexOf('.');
    return dot < 0 ? module : module.substring(0, dot);
  }

  private static String join(String dir, String relative) {
    return dir.endsWith("/") ? dir + relative : dir + "/" + relative;
  }

  private static String baseName(String program) {
    return program.substring(program.lastIndexOf('/') + 1);
  }
}

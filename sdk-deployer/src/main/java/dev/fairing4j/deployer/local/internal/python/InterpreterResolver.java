package dev.fairing4j.deployer.local.internal.python;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.deployer.local.internal.runtime.HostTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Chooses the Python interpreter that runs a job's {@code python}/{@code torchrun} commands: the
 * configured one, or the first candidate that can find every module the code needs. Debian's
 * {@code python3-torch} lives under {@code /usr/bin/python3}, which is often not the first
 * {@code python3} on PATH (pyenv, venvs), so {@code /usr/bin/python3} is tried first.
 */
public final class InterpreterResolver {
  private static final List<String> SYSTEM_DIRS =
      List.of("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32");
  /**
   * Modules whose Debian 12 package is known to exist (checked with {@code apt-cache show}); an
   * empty name marks a module Debian does not package. Any other module gets a hint on how to
   * look rather than a guessed package name ({@code python3-tensorboardx} does not exist).
   */
  private static final Map<String, String> APT_NAMES = Map.ofEntries(
      Map.entry("torch", "python3-torch"), Map.entry("torchvision", "python3-torchvision"),
      Map.entry("torchaudio", "python3-torchaudio"), Map.entry("sklearn", "python3-sklearn"),
      Map.entry("yaml", "python3-yaml"), Map.entry("PIL", "python3-pil"),
      Map.entry("cv2", "python3-opencv"), Map.entry("numpy", "python3-numpy"),
      Map.entry("pandas", "python3-pandas"), Map.entry("scipy", "python3-scipy"),
      Map.entry("matplotlib", "python3-matplotlib"), Map.entry("requests", "python3-requests"),
      Map.entry("tqdm", "python3-tqdm"), Map.entry("h5py", "python3-h5py"),
      Map.entry("tensorflow", ""), Map.entry("tensorboardX", ""));

  /**
   * Modules whose PyPI package has another name, from the packages' own install instructions:
   * {@code pip install hypertune} finds nothing, {@code cloudml-hypertune} is the package.
   */
  private static final Map<String, String> PIP_NAMES = Map.ofEntries(
      Map.entry("hypertune", "cloudml-hypertune"), Map.entry("sklearn", "scikit-learn"),
      Map.entry("skimage", "scikit-image"), Map.entry("cv2", "opencv-python"),
      Map.entry("PIL", "Pillow"), Map.entry("yaml", "PyYAML"),
      Map.entry("bs4", "beautifulsoup4"), Map.entry("attr", "attrs"),
      Map.entry("dateutil", "python-dateutil"), Map.entry("dotenv", "python-dotenv"),
      Map.entry("jwt", "PyJWT"), Map.entry("zmq", "pyzmq"), Map.entry("serial", "pyserial"),
      Map.entry("Crypto", "pycryptodome"), Map.entry("OpenSSL", "pyOpenSSL"),
      Map.entry("MySQLdb", "mysqlclient"), Map.entry("psycopg2", "psycopg2-binary"),
      Map.entry("docx", "python-docx"), Map.entry("fitz", "PyMuPDF"),
      Map.entry("magic", "python-magic"), Map.entry("gi", "PyGObject"),
      Map.entry("usb", "pyusb"), Map.entry("jose", "python-jose"),
      Map.entry("Levenshtein", "python-Levenshtein"), Map.entry("faiss", "faiss-cpu"),
      Map.entry("tensorflow_datasets", "tensorflow-datasets"),
      Map.entry("sentencepiece", "sentencepiece"), Map.entry("google", "(a google-* package:"
          + " google-cloud-storage, protobuf, ...)"));
  /** Modules whose package has the module's own name: no note that it may differ. */
  private static final Set<String> SAME_NAME = Set.of("torch", "torchvision", "torchaudio",
      "numpy", "pandas", "scipy", "matplotlib", "requests", "tqdm", "h5py", "tensorflow",
      "tensorboardX", "tensorboard", "xgboost", "lightgbm", "kserve", "transformers",
      "datasets", "accelerate", "mlflow", "wandb", "boto3", "fastapi", "uvicorn", "flask",
      "onnx", "onnxruntime", "jax", "optuna", "ray", "pyarrow", "kubernetes", "kfp", "deepspeed",
      "timm", "evaluate", "peft", "safetensors", "tokenizers", "einops", "lightning",
      "pytorch_lightning", "torchmetrics", "seaborn", "plotly", "joblib", "catboost");

  private InterpreterResolver() {}

  /**
   * The {@code pip install} words for {@code modules}: each module's package name, which for
   * some differs from the module ({@code hypertune} is {@code cloudml-hypertune}).
   */
  static List<String> pipPackages(java.util.Collection<String> modules) {
    return modules.stream().map(m -> PIP_NAMES.getOrDefault(m, m)).filter(n -> !n.startsWith(
        "(")).distinct().toList();
  }

  /**
   * What the hint says of package names: the known packages whose name differs from their
   * module's, and that the others' may differ too.
   */
  static String packageNote(java.util.Collection<String> modules) {
    List<String> notes = new ArrayList<>();
    for (String module : modules) {
      String known = PIP_NAMES.get(module);
      if (known != null) {
        notes.add("module " + module + " comes from " + (known.startsWith("(") ? known
            .substring(1, known.length() - 1) + ")" : "the package " + known));
      }
    }
    List<String> unknown = modules.stream().filter(m -> !PIP_NAMES.containsKey(m)
        && !SAME_NAME.contains(m)).toList();
    if (!unknown.isEmpty()) {
      notes.add("the package of " + String.join(", ", unknown) + " may be named differently"
          + " from the module: check its install instructions");
    }
    return String.join("; ", notes);
  }

  /**
   * The chosen interpreter.
   *
   * @param executable the real interpreter ({@code sys.executable})
   * @param version its version
   * @param hostDirs directories outside the system directories it needs (a pyenv or venv
   *     prefix), bound read-only into the sandbox
   * @param missing required modules it cannot find yet (only when requirements may add them)
   * @param note the sentence saying which interpreter runs the job, and why
   */
  public record Interpreter(Path executable, String version, List<Path> hostDirs,
      List<String> missing, String note) {
    /** Copies the lists. */
    public Interpreter {
      hostDirs = List.copyOf(hostDirs);
      missing = List.copyOf(missing);
    }
  }

  /**
   * Chooses an interpreter for code that needs {@code modules}.
   *
   * @param configured the user's choice, if any: used even when it lacks a module (with a
   *     warning in the note)
   * @param sandboxed whether the user's site-packages will be hidden
   * @param requirementsFollow whether a requirements.txt will be installed, which may provide
   *     what every candidate lacks
   * @param provided host directories the job itself puts on its {@code PYTHONPATH} (the image's
   *     prebuilt dependency layer): what they hold counts as importable
   * @throws FairingException when no candidate runs, or none finds the modules and no
   *     requirements follow; it names each candidate's missing modules and the install command
   */
  public static Interpreter choose(Set<String> modules, Optional<Path> configured,
      boolean sandboxed, boolean requirementsFollow, List<Path> provided) {
    List<Path> candidates = new ArrayList<>();
    configured.ifPresent(candidates::add);
    if (configured.isEmpty()) {
      candidates.add(Path.of("/usr/bin/python3"));
      HostTools.find("python3").ifPresent(candidates::add);
      HostTools.find("python").ifPresent(candidates::add);
    }
    Map<Path, PythonProbe.Result> results = new LinkedHashMap<>();
    List<String> unusable = new ArrayList<>();
    for (Path candidate : new LinkedHashSet<>(candidates)) {
      if (!Files.isExecutable(candidate)) {
        unusable.add(candidate + " (not found)");
        continue;
      }
      Optional<PythonProbe.Result> result =
          PythonProbe.probe(candidate, modules, provided, sandboxed);
      if (result.isEmpty()) {
        unusable.add(candidate + " (does not run)");
        continue;
      }
      results.putIfAbsent(result.get().executable(), result.get());
      if (result.get().missing().isEmpty()) {
        break;
      }
    }
    if (results.isEmpty()) {
      throw FairingException.of("choose Python interpreter",
          "no Python interpreter runs here: " + String.join(", ", unusable),
          "apt-get install python3, or set LocalCluster.python(Path)");
    }
    Optional<PythonProbe.Result> complete = results.values().stream()
        .filter(r -> r.missing().isEmpty()).findFirst();
    if (complete.isPresent()) {
      return interpreter(complete.get(), modules, results.values(), "");
    }
    PythonProbe.Result fewest = results.values().stream()
        .min(Comparator.comparingInt(r -> r.missing().size())).orElseThrow();
    if (configured.isPresent()) {
      return interpreter(fewest, modules, List.of(), "; WARNING: it cannot find "
          + String.join(", ", fewest.missing()) + (requirementsFollow
              ? " before requirements.txt is installed" : ", so the job will probably fail"));
    }
    if (requirementsFollow) {
      return interpreter(fewest, modules, results.values(),
          "; requirements.txt is to provide " + String.join(", ", fewest.missing()));
    }
    throw noneFits(modules, results.values());
  }

  /**
   * Fails unless {@code interpreter}, with the installed requirements on its path, finds the
   * modules it was missing.
   */
  public static void checkAfterInstall(Interpreter interpreter, Path deps, List<Path> provided,
      boolean sandboxed) {
    if (interpreter.missing().isEmpty()) {
      return;
    }
    List<Path> path = new ArrayList<>(List.of(deps));
    path.addAll(provided);
    PythonProbe.probe(interpreter.executable(), new LinkedHashSet<>(interpreter.missing()),
        path, sandboxed).filter(r -> !r.missing().isEmpty())
        .ifPresent(r -> {
          throw noneFits(new LinkedHashSet<>(interpreter.missing()), List.of(r));
        });
  }

  private static Interpreter interpreter(PythonProbe.Result chosen, Set<String> modules,
      java.util.Collection<PythonProbe.Result> others, String warning) {
    StringBuilder note = new StringBuilder("local cluster: Python ")
        .append(chosen.executable()).append(" (").append(chosen.version()).append(") runs the job");
    if (modules.isEmpty()) {
      note.append(", the first interpreter found");
    } else if (chosen.missing().isEmpty()) {
      note.append(": it can import ").append(String.join(", ", modules));
    }
    String rejected = others.stream().filter(r -> r != chosen && !r.missing().isEmpty())
        .map(r -> r.executable() + " cannot (no " + String.join(", ", r.missing()) + ")")
        .collect(Collectors.joining("; "));
    if (!rejected.isEmpty()) {
      note.append("; ").append(rejected);
    }
    note.append(warning);
    return new Interpreter(chosen.executable(), chosen.version(), hostDirs(chosen),
        chosen.missing(), note.toString());
  }

  private static FairingException noneFits(Set<String> modules,
      java.util.Collection<PythonProbe.Result> results) {
    String tried = results.stream()
        .map(r -> r.executable() + " lacks " + String.join(", ", r.missing()))
        .collect(Collectors.joining("; "));
    // What no interpreter has: a module one of them imports is not "missing here".
    Set<String> missing = new LinkedHashSet<>(modules);
    results.forEach(r -> missing.retainAll(r.missing()));
    if (missing.isEmpty()) {
      results.stream().min(Comparator.comparingInt(r -> r.missing().size()))
          .ifPresent(r -> missing.addAll(r.missing()));
    }
    String known = missing.stream().map(m -> APT_NAMES.getOrDefault(m, ""))
        .filter(name -> !name.isEmpty()).distinct().collect(Collectors.joining(" "));
    List<String> unknown = missing.stream().filter(m -> !APT_NAMES.containsKey(m)).toList();
    StringBuilder hint = new StringBuilder();
    if (!known.isEmpty()) {
      hint.append("apt-get install ").append(known)
          .append(" (Debian's packages run with /usr/bin/python3), or ");
    }
    List<String> packages = pipPackages(missing);
    if (!packages.isEmpty()) {
      hint.append("pip install ").append(String.join(" ", packages)).append(" for your python,"
          + " or ");
    }
    hint.append("list them in requirements.txt, or set LocalCluster.python(Path)");
    String note = packageNote(missing);
    if (!note.isEmpty()) {
      hint.append(" (").append(note).append(")");
    }
    if (!unknown.isEmpty()) {
      hint.append("; to look for a Debian package: apt-cache search --names-only '")
          .append(unknown.stream().map(m -> "python3-" + m.toLowerCase(Locale.ROOT))
              .collect(Collectors.joining("|")))
          .append("'");
    }
    return FairingException.of("choose Python interpreter",
        "no Python interpreter here can import " + String.join(", ", missing)
            + " (needed: " + String.join(", ", modules) + "; " + tried + ")", hint.toString());
  }

  private static List<Path> hostDirs(PythonProbe.Result result) {
    List<Path> dirs = new ArrayList<>();
    List<Path> all = new ArrayList<>(result.prefixes());
    all.addAll(result.path());
    all.add(result.executable().getParent());
    for (Path dir : all) {
      Path normal = dir.toAbsolutePath().normalize();
      boolean system = SYSTEM_DIRS.stream().anyMatch(s -> normal.startsWith(s));
      if (!system && Files.exists(normal) && dirs.stream().noneMatch(normal::startsWith)) {
        dirs.removeIf(d -> d.startsWith(normal));
        dirs.add(normal);
      }
    }
    return dirs;
  }
}

package dev.fairing4j.deployer.local.internal.python;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.core.internal.BoundedCache;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.deployer.job.internal.Mappers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Asks a Python interpreter what it is and which of some modules it can find. It uses
 * {@code importlib.util.find_spec}, which locates a module without importing it, so checking
 * {@code torch} costs a Python start (tens of milliseconds), not a torch import (seconds).
 */
public final class PythonProbe {
  private static final String SNIPPET = String.join("\n",
      "import sys, json, importlib.util",
      "def found(m):",
      "    try:",
      "        return importlib.util.find_spec(m) is not None",
      "    except Exception:",
      "        return False",
      "print(json.dumps({'executable': sys.executable, 'version': sys.version.split()[0],",
      "  'prefixes': sorted({sys.prefix, sys.base_prefix, sys.exec_prefix,"
          + " sys.base_exec_prefix}),",
      "  'path': [p for p in sys.path if p],",
      "  'missing': [m for m in sys.argv[1:] if not found(m)]}))");
  // Only successful probes are remembered: after a failed one the user may install the package
  // and run the same cell again.
  // A runtime's part: 64 interpreter, module set and path keys, least recently used forgotten (a
  // probe starts Python, about 100 ms).
  private static BoundedCache<String, Result> cache() {
    return Owner.current().part(PythonProbe.class, () -> BoundedCache.ofSize(64));
  }

  private PythonProbe() {}

  /**
   * What one interpreter said.
   *
   * @param candidate the path that was run (may be a shim)
   * @param executable {@code sys.executable}: the real interpreter
   * @param version e.g. {@code 3.11.2}
   * @param prefixes its installation prefixes
   * @param path its {@code sys.path}
   * @param missing the asked modules it cannot find
   */
  public record Result(Path candidate, Path executable, String version, List<Path> prefixes,
      List<Path> path, List<String> missing) {
    /** Copies the lists. */
    public Result {
      prefixes = List.copyOf(prefixes);
      path = List.copyOf(path);
      missing = List.copyOf(missing);
    }
  }

  /**
   * Runs {@code python} with the probe.
   *
   * @param extraPath directories to put on PYTHONPATH (installed requirements, the job's own
   *     dependency layer), in order
   * @param noUserSite run with {@code -s}, as the sandbox hides the user's site-packages
   * @return empty when the interpreter cannot be run
   */
  public static Optional<Result> probe(Path python, Set<String> modules,
      List<Path> extraPath, boolean noUserSite) {
    String key = python + "|" + modules + "|" + extraPath + "|" + noUserSite;
    Optional<Result> cached = cache().get(key);
    if (cached.isPresent()) {
      return cached;
    }
    List<String> command = new ArrayList<>(List.of(python.toString()));
    if (noUserSite) {
      command.add("-s");
    }
    command.addAll(List.of("-c", SNIPPET));
    command.addAll(modules);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().keySet().removeIf(k -> k.startsWith("PYTHON"));
    if (!extraPath.isEmpty()) {
      builder.environment().put("PYTHONPATH", extraPath.stream().map(Path::toString)
          .collect(java.util.stream.Collectors.joining(":")));
    }
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      byte[] out = process.getInputStream().readAllBytes();
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        return Optional.empty();
      }
      String text = new String(out, StandardCharsets.UTF_8);
      JsonNode json = Mappers.JSON.readTree(text.substring(text.lastIndexOf("\n{") + 1).trim());
      Result result = new Result(python, Path.of(json.get("executable").asText()),
          json.get("version").asText(), paths(json.get("prefixes")), paths(json.get("path")),
          strings(json.get("missing")));
      if (result.missing().isEmpty()) {
        cache().put(key, result);
      }
      return Optional.of(result);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static List<Path> paths(JsonNode array) {
    List<Path> paths = new ArrayList<>();
    array.forEach(n -> paths.add(Path.of(n.asText())));
    return paths;
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(n -> values.add(n.asText()));
    return values;
  }
}

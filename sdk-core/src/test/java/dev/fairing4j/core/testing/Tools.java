package dev.fairing4j.core.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;

/**
 * Finds the external programs a test needs, and fails the test with an install hint when one is
 * missing. The project's rule is that a missing part is a failure, never a silent skip: a skipped
 * test looks green in CI while testing nothing.
 */
public final class Tools {
  private static final List<Path> SYSTEM_DIRS =
      List.of(Path.of("/usr/bin"), Path.of("/usr/sbin"), Path.of("/bin"), Path.of("/sbin"),
          Path.of("/usr/local/bin"));
  private static final Map<String, Path> FOUND = new ConcurrentHashMap<>();
  private static volatile Path torchPython;

  private Tools() {}

  /**
   * Returns the absolute path of {@code binary}, searched on {@code PATH} and then in the system
   * directories (which a test JVM's PATH may lack).
   *
   * @throws AssertionFailedError naming the binary and saying {@code install it: apt-get install
   *     <aptPackage>}
   */
  public static Path require(String binary, String aptPackage) {
    return find(binary).orElseThrow(() -> new AssertionFailedError(
        "'" + binary + "' is not installed; install it: apt-get install " + aptPackage));
  }

  /** Where {@code binary} is, if it is installed; for code that picks between alternatives. */
  public static Optional<Path> find(String binary) {
    Path cached = FOUND.get(binary);
    if (cached != null) {
      return Optional.of(cached);
    }
    Set<Path> dirs = new LinkedHashSet<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty()) {
          dirs.add(Path.of(dir));
        }
      }
    }
    dirs.addAll(SYSTEM_DIRS);
    for (Path dir : dirs) {
      Path candidate = dir.resolve(binary);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        Path absolute = candidate.toAbsolutePath();
        FOUND.put(binary, absolute);
        return Optional.of(absolute);
      }
    }
    return Optional.empty();
  }

  /** Where Debian's {@code dataset-fashion-mnist} puts the FashionMNIST IDX files. */
  public static final Path FASHION_MNIST = Path.of("/usr/share/datasets/fashion-mnist");

  /**
   * The FashionMNIST directory the training examples read.
   *
   * @throws AssertionFailedError saying {@code install it: apt-get install dataset-fashion-mnist}
   *     when its files are missing
   */
  public static Path fashionMnist() {
    if (!Files.isRegularFile(FASHION_MNIST.resolve("train-images-idx3-ubyte.gz"))) {
      throw new AssertionFailedError("FashionMNIST is missing under " + FASHION_MNIST
          + "; install it: apt-get install dataset-fashion-mnist");
    }
    return FASHION_MNIST;
  }

  /**
   * An IPv4 address of this machine other than loopback, to check that a server is, or is not,
   * reachable from the network.
   *
   * @throws AssertionFailedError when the machine has none
   */
  public static java.net.InetAddress nonLoopbackAddress() {
    try {
      for (java.net.NetworkInterface each : java.util.Collections.list(
          java.net.NetworkInterface.getNetworkInterfaces())) {
        if (each.isUp() && !each.isLoopback()) {
          for (java.net.InetAddress address : java.util.Collections.list(
              each.getInetAddresses())) {
            if (address instanceof java.net.Inet4Address) {
              return address;
            }
          }
        }
      }
    } catch (java.net.SocketException e) {
      throw new AssertionFailedError("cannot list this machine's network interfaces: " + e);
    }
    throw new AssertionFailedError("this machine has no non-loopback IPv4 address to check from");
  }

  /** Whether a TCP connection to {@code address}:{@code port} opens within 2 s. */
  public static boolean connects(java.net.InetAddress address, int port) {
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress(address, port), 2_000);
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /**
   * What a FashionMNIST job on {@code Clusters.local()} needs: bubblewrap, a Python that imports
   * torch, and the dataset; each missing part fails with the line that installs it.
   */
  public static void localTraining() {
    require("bwrap", "bubblewrap");
    torchPython();
    fashionMnist();
  }

  /**
   * Returns a Python interpreter that can {@code import torch}. {@code /usr/bin/python3} comes
   * first because the first {@code python3} on PATH may be a pyenv or venv interpreter without the
   * Debian torch packages.
   *
   * @throws AssertionFailedError saying {@code apt-get install python3-torch python3-torchvision}
   */
  public static Path torchPython() {
    Path known = torchPython;
    if (known != null) {
      return known;
    }
    List<Path> candidates = new ArrayList<>();
    candidates.add(Path.of("/usr/bin/python3"));
    find("python3").ifPresent(candidates::add);
    List<String> tried = new ArrayList<>();
    for (Path candidate : new LinkedHashSet<>(candidates)) {
      if (!Files.isExecutable(candidate)) {
        continue;
      }
      tried.add(candidate.toString());
      if (canImportTorch(candidate)) {
        torchPython = candidate;
        return candidate;
      }
    }
    throw new AssertionFailedError("no Python interpreter can 'import torch' (tried " + tried
        + "); install it: apt-get install python3-torch python3-torchvision");
  }

  /**
   * Fails unless {@code python} imports {@code module}, with the line that installs it.
   *
   * @throws AssertionFailedError saying {@code apt-get install <aptPackage>}
   */
  public static void requirePythonModule(Path python, String module, String aptPackage) {
    try {
      Process p = new ProcessBuilder(python.toString(), "-c", "import " + module)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return;
      }
      p.destroyForcibly();
    } catch (IOException e) {
      // answered below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new AssertionFailedError(python + " cannot 'import " + module + "'; install it:"
        + " apt-get install " + aptPackage);
  }

  /**
   * The installed version of each distribution, as {@code python}'s {@code importlib.metadata}
   * reads it: what a report of the interpreter's packages must agree with, asked directly.
   */
  public static List<String> distributionVersions(Path python, String... names) {
    StringBuilder program = new StringBuilder("import importlib.metadata as m");
    for (String name : names) {
      program.append("; print(m.version('").append(name).append("'))");
    }
    try {
      Process p = new ProcessBuilder(python.toString(), "-c", program.toString()).start();
      List<String> versions = new String(p.getInputStream().readAllBytes(),
          java.nio.charset.StandardCharsets.UTF_8).lines().toList();
      if (p.waitFor() != 0 || versions.size() != names.length) {
        throw new AssertionFailedError(python + " cannot say the versions of "
            + List.of(names) + ": " + versions);
      }
      return versions;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted", e);
    }
  }

  private static boolean canImportTorch(Path python) {
    try {
      Process p = new ProcessBuilder(python.toString(), "-c", "import torch")
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      // importing torch cold reads a few hundred MiB of shared objects; be generous
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
        return false;
      }
      return p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}

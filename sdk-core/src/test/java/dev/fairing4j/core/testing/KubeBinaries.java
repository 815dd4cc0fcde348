package dev.fairing4j.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;

/**
 * Finds the Kubernetes server binaries the real-API tests run ({@code kube-apiserver},
 * {@code kube-controller-manager}) through one setting: the environment variable
 * {@value #VARIABLE} or the system property {@value #PROPERTY}, naming a directory that holds
 * them unpacked or as {@code .xz} files (as {@code ../shared/k8s} does). Packed binaries are
 * unpacked once into {@code ~/.cache/fairing4j/k8s/api-<sha256>/}, checked against the
 * directory's {@code SHA256SUMS} when it has one.
 *
 * <p>Neither set is a test failure with the ways to get the binaries, never a skip: a skipped
 * real-API suite looks green while testing nothing.
 */
public final class KubeBinaries {
  /** The environment variable naming the binaries' directory. */
  public static final String VARIABLE = "FAIRING4J_K8S";
  /** The system property naming the binaries' directory; wins over the variable. */
  public static final String PROPERTY = "fairing4j.k8s";

  /** How a user gets the binaries; part of every failure message. */
  static final String HOW_TO_GET = String.join("\n",
      "The real Kubernetes API tests run kube-apiserver and kube-controller-manager v1.32 with",
      "etcd (apt-get install etcd-server). Point " + VARIABLE + " (or -D" + PROPERTY + "=) at a",
      "directory holding them, unpacked or as .xz files:",
      "  - in this workspace: " + VARIABLE + "=../shared/k8s (scripts/test.sh sets it when"
          + " that directory exists);",
      "  - elsewhere: envtest's binaries (go run sigs.k8s.io/controller-runtime/tools/"
          + "setup-envtest@latest use 1.32.x --bin-dir DIR) give kube-apiserver and etcd;",
      "    kube-controller-manager is in https://dl.k8s.io/v1.32.13/kubernetes-server-linux-"
          + "amd64.tar.gz (kubernetes/server/bin/).");

  private static final Map<String, Path> RESOLVED = new HashMap<>();

  private KubeBinaries() {}

  /** The configured directory, if the variable or property names one. */
  public static Optional<Path> configuredDirectory() {
    String value = System.getProperty(PROPERTY);
    if (value == null || value.isBlank()) {
      value = System.getenv(VARIABLE);
    }
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(Path.of(value));
  }

  /**
   * The executable {@code name} (e.g. {@code kube-apiserver}) from the configured directory,
   * unpacked first when only {@code name.xz} is there.
   *
   * @throws AssertionFailedError when nothing is configured or the binary is missing, saying how
   *     to provide it
   */
  public static synchronized Path require(String name) {
    Path known = RESOLVED.get(name);
    if (known != null) {
      return known;
    }
    Path dir = configuredDirectory().orElseThrow(() -> new AssertionFailedError(
        "no Kubernetes binaries configured: " + VARIABLE + " is unset.\n" + HOW_TO_GET));
    if (!Files.isDirectory(dir)) {
      throw new AssertionFailedError(VARIABLE + "=" + dir + " is not a directory.\n" + HOW_TO_GET);
    }
    Path plain = dir.resolve(name);
    Path packed = dir.resolve(name + ".xz");
    Path found;
    if (Files.isRegularFile(plain) && Files.isExecutable(plain)) {
      found = plain.toAbsolutePath();
    } else if (Files.isRegularFile(packed)) {
      found = unpack(packed, dir.resolve("SHA256SUMS"), name);
    } else {
      throw new AssertionFailedError("neither " + plain + " nor " + packed + " exists ("
          + VARIABLE + "=" + dir + ").\n" + HOW_TO_GET);
    }
    RESOLVED.put(name, found);
    return found;
  }

  /** {@code etcd} from the configured directory (envtest ships one), else from the system. */
  public static Path etcd() {
    Optional<Path> beside = configuredDirectory().map(dir -> dir.resolve("etcd"))
        .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p));
    return beside.orElseGet(() -> Tools.require("etcd", "etcd-server"));
  }

  private static Path unpack(Path packed, Path sums, String name) {
    try {
      String packedSha = sha256(packed).substring(0, 16);
      Path dir = Path.of(System.getProperty("user.home"), ".cache", "fairing4j", "k8s",
          "api-" + packedSha);
      Path target = dir.resolve(name);
      if (Files.isExecutable(target)) {
        return target;
      }
      Files.createDirectories(dir);
      Path temporary = Files.createTempFile(dir, name, ".unpacking");
      Path xz = Tools.require("xz", "xz-utils");
      Process process = new ProcessBuilder(xz.toString(), "-dc", packed.toString())
          .redirectOutput(temporary.toFile())
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
        process.destroyForcibly();
        Files.deleteIfExists(temporary);
        throw new AssertionFailedError("cannot unpack " + packed + " with xz");
      }
      if (Files.isRegularFile(sums)) {
        String expected = expectedSum(sums, name).orElseThrow(() -> new AssertionFailedError(
            sums + " has no line for " + name));
        String actual = sha256(temporary);
        if (!actual.equals(expected)) {
          Files.deleteIfExists(temporary);
          throw new AssertionFailedError(packed + " unpacks to sha256 " + actual + ", but "
              + sums + " says " + expected);
        }
      }
      temporary.toFile().setExecutable(true, false);
      Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + packed, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted while unpacking " + packed);
    }
  }

  private static Optional<String> expectedSum(Path sums, String name) throws IOException {
    for (String line : Files.readAllLines(sums)) {
      List<String> parts = List.of(line.trim().split("\\s+\\*?"));
      if (parts.size() == 2 && parts.get(1).equals(name)) {
        return Optional.of(parts.get(0));
      }
    }
    return Optional.empty();
  }

  private static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}

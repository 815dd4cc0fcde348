package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.internal.JvmWide;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the programs the local cluster runs ({@code bwrap}, {@code setsid}, {@code setpriv}),
 * searching PATH and then the system directories a JVM's PATH may lack.
 */
public final class HostTools {
  private static final List<String> SYSTEM_DIRS =
      List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin");
  @JvmWide(why = "where a tool lives on this machine holds for the whole JVM",
      bound = "the tools the SDK names (a fixed set in its code)")
  private static final Map<String, Path> FOUND = new ConcurrentHashMap<>();

  private HostTools() {}

  /** Where {@code binary} is installed, if it is. */
  public static Optional<Path> find(String binary) {
    Path cached = FOUND.get(binary);
    if (cached != null) {
      return Optional.of(cached);
    }
    Set<String> dirs = new LinkedHashSet<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    dirs.addAll(SYSTEM_DIRS);
    for (String dir : dirs) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, binary);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        FOUND.put(binary, candidate);
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Where {@code binary} is.
   *
   * @throws FairingException naming the Debian package that provides it
   */
  public static Path require(String binary, String aptPackage, String alternative) {
    return find(binary).orElseThrow(() -> FairingException.of("run job locally",
        "'" + binary + "' is not installed", "apt-get install " + aptPackage
            + (alternative.isEmpty() ? "" : ", or " + alternative)));
  }
}

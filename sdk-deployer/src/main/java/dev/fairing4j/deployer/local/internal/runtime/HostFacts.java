package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.internal.JvmWide;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Facts about this machine that the local cluster reports in place of a node's: its host name and
 * memory. Read once; they do not change while the JVM runs.
 */
public final class HostFacts {
  @JvmWide(why = "a fact of this machine, read once",
      bound = "one name")
  private static volatile String hostName;

  private HostFacts() {}

  /** The host name, as a node name. */
  public static String hostName() {
    String name = hostName;
    if (name == null) {
      try {
        name = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
      } catch (IOException e) {
        try {
          name = InetAddress.getLocalHost().getHostName();
        } catch (IOException again) {
          name = "localhost";
        }
      }
      hostName = name;
    }
    return name;
  }

  /** Total memory in bytes, from /proc/meminfo (0 when unknown). */
  public static long memoryBytes() {
    try {
      List<String> lines = Files.readAllLines(Path.of("/proc/meminfo"));
      for (String line : lines) {
        if (line.startsWith("MemTotal:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux, or an unusual /proc: report nothing rather than fail the job
    }
    return 0;
  }
}

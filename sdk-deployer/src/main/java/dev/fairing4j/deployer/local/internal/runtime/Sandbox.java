package dev.fairing4j.deployer.local.internal.runtime;

import java.nio.file.Path;
import java.util.List;

/**
 * How a replica's command is wrapped into a host command line. Every wrapping starts the replica
 * in its own session ({@code setsid}), so its pid is its process-group id, and ties it to the JVM
 * with a parent-death signal.
 */
public interface Sandbox extends ReplicaLauncher {
  /** Where the bin-dir shims appear inside. */
  String BIN_MOUNT = "/.fairing4j/bin";

  /** The host command line that runs {@code spec}. */
  List<String> command(LaunchSpec spec);

  /** The host directory the wrapper starts in. */
  Path directory(LaunchSpec spec);

  /** HOME as the replica sees it. */
  String home();

  /** The shim directory as the replica sees it. */
  String binDir(Path hostBinDir);

  /** True when container paths are isolated from the host. */
  boolean isolates();
}

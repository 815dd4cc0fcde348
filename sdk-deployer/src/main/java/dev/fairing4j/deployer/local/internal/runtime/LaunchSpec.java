package dev.fairing4j.deployer.local.internal.runtime;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Everything a sandbox needs to start one replica: the command in container terms and where each
 * container path comes from on the host.
 *
 * @param argv the command, with container paths ({@code /app/train.py})
 * @param workingDir the container directory the command starts in
 * @param runDir the host directory standing in for the context's working directory
 * @param runMount the context's working directory, where {@code runDir} appears
 * @param binds volumes and staged files, each at its container path
 * @param binDir a host directory of shims ({@code python}, {@code torchrun}) put first on PATH
 * @param hostDirs host directories the interpreter needs (a pyenv or venv), read-only
 * @param devices device nodes to pass through (GPUs a replica requested)
 * @param host the replica's own host name and hosts file, where the sandbox gives it one
 */
public record LaunchSpec(List<String> argv, String workingDir, Path runDir, String runMount,
    List<Bind> binds, Optional<Path> binDir, List<Path> hostDirs, List<Path> devices,
    Optional<Host> host) {

  /** Copies the lists. */
  public LaunchSpec {
    argv = List.copyOf(argv);
    binds = List.copyOf(binds);
    hostDirs = List.copyOf(hostDirs);
    devices = List.copyOf(devices);
  }

  /**
   * A host path that appears at a container path.
   *
   * @param host the host file or directory; ignored for a tmpfs
   * @param target the container path
   * @param readOnly mounted read-only
   * @param tmpfs a fresh in-memory directory instead of a host path (emptyDir medium Memory)
   */
  public record Bind(Path host, String target, boolean readOnly, boolean tmpfs) {}

  /**
   * A pod's network identity inside the sandbox.
   *
   * @param name the host name (the pod name)
   * @param hostsFile the file that appears at {@code /etc/hosts}
   */
  public record Host(String name, Path hostsFile) {}
}

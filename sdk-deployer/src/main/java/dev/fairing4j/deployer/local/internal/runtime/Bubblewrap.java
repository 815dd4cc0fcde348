package dev.fairing4j.deployer.local.internal.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Runs a replica in a bubblewrap sandbox that looks like its container: a fresh tmpfs root, the
 * system directories read-only, the run directory at the working directory, each volume at its
 * mount path, private /tmp and /dev/shm, the host network. Scripts that hard-code container paths
 * ({@code /opt/mnist/models}) work unchanged and create nothing on the host outside the run and
 * volume directories. {@code --unshare-pid} gives the replica its own pid namespace: when the
 * command ends, or bwrap dies with the JVM ({@code --die-with-parent}), every process inside goes
 * with it. Given a {@link LaunchSpec.Host}, the replica gets its own host name and
 * {@code /etc/hosts}, as a pod does ({@code PodHosts}). A start costs about 10 ms.
 */
public final class Bubblewrap implements Sandbox {
  private static final List<String> SYSTEM_LINKS =
      List.of("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32");
  private static final String HOME = "/root";
  /** How a supervisor tells bwrap's own processes from the replica's: by their command. */
  public static final ReplicaLauncher LAUNCHER = new ReplicaLauncher() {
    @Override
    public boolean isWrapper(ProcessGroups.Stat member, long leader) {
      return member.command().equals("bwrap");
    }

    @Override
    public String toString() {
      return "bwrap";
    }
  };

  private final Path bwrap;
  private final Path setsid;

  /** Uses the given binaries. */
  public Bubblewrap(Path bwrap, Path setsid) {
    this.bwrap = bwrap;
    this.setsid = setsid;
  }

  @Override
  public List<String> command(LaunchSpec spec) {
    List<String> cmd = new ArrayList<>(List.of(setsid.toString(), bwrap.toString(),
        "--die-with-parent", "--unshare-pid", "--tmpfs", "/", "--ro-bind", "/usr", "/usr"));
    for (String dir : SYSTEM_LINKS) {
      Path path = Path.of(dir);
      try {
        if (Files.isSymbolicLink(path)) {
          cmd.addAll(List.of("--symlink", Files.readSymbolicLink(path).toString(), dir));
        } else if (Files.isDirectory(path)) {
          cmd.addAll(List.of("--ro-bind", dir, dir));
        }
      } catch (IOException e) {
        // an unreadable /lib32 link is not something a replica can use anyway
      }
    }
    cmd.addAll(List.of("--ro-bind", "/etc", "/etc",
        // /etc/resolv.conf often links into /run; without it DNS fails inside
        "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve",
        "--ro-bind-try", "/sys", "/sys",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm",
        "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--dir", HOME));
    spec.host().ifPresent(host -> cmd.addAll(List.of("--unshare-uts", "--hostname", host.name(),
        "--ro-bind", host.hostsFile().toString(), "/etc/hosts")));
    for (Path device : spec.devices()) {
      cmd.addAll(List.of("--dev-bind", device.toString(), device.toString()));
    }
    for (Path dir : spec.hostDirs()) {
      cmd.addAll(List.of("--ro-bind", dir.toString(), dir.toString()));
    }
    spec.binDir().ifPresent(bin -> cmd.addAll(List.of("--ro-bind", bin.toString(), BIN_MOUNT)));
    cmd.addAll(List.of("--bind", spec.runDir().toString(), spec.runMount()));
    // Parents before children: a mount under another mount must come after it.
    List<LaunchSpec.Bind> binds = new ArrayList<>(spec.binds());
    binds.sort(Comparator.comparingLong((LaunchSpec.Bind b) -> b.target().chars()
        .filter(c -> c == '/').count()).thenComparing(LaunchSpec.Bind::target));
    for (LaunchSpec.Bind bind : binds) {
      if (bind.tmpfs()) {
        cmd.addAll(List.of("--tmpfs", bind.target()));
      } else {
        cmd.addAll(List.of(bind.readOnly() ? "--ro-bind" : "--bind", bind.host().toString(),
            bind.target()));
      }
    }
    if (!spec.workingDir().equals(spec.runMount())
        && !spec.workingDir().startsWith(spec.runMount() + "/")) {
      // As a container runtime does, create a working directory the image lacks.
      cmd.addAll(List.of("--dir", spec.workingDir()));
    }
    cmd.addAll(List.of("--chdir", spec.workingDir(), "--"));
    cmd.addAll(spec.argv());
    return cmd;
  }

  @Override
  public Path directory(LaunchSpec spec) {
    return spec.runDir();
  }

  @Override
  public String home() {
    return HOME;
  }

  @Override
  public String binDir(Path hostBinDir) {
    return BIN_MOUNT;
  }

  @Override
  public boolean isolates() {
    return true;
  }

  @Override
  public boolean isWrapper(ProcessGroups.Stat member, long leader) {
    return LAUNCHER.isWrapper(member, leader);
  }

  @Override
  public String toString() {
    return "bwrap";
  }
}

package dev.fairing4j.deployer.local.internal.runtime;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a replica directly on the host, in the run directory, when the user opts out of the
 * sandbox. Container paths are not isolated: a script that writes to {@code /opt/mnist/models}
 * writes to the host's {@code /opt}. Only the command line's own container paths are mapped to
 * their host counterparts. {@code setpriv --pdeathsig KILL} ties the replica's main process to the
 * JVM; its own children (torchrun's workers, DataLoader workers) are stopped through the process
 * group on delete or timeout, but may outlive a SIGKILLed JVM, which only the sandbox's pid
 * namespace prevents.
 */
public final class Unsandboxed implements Sandbox {
  /** Every process of an unsandboxed replica is the replica's own. */
  public static final ReplicaLauncher LAUNCHER = new ReplicaLauncher() {
    @Override
    public boolean isWrapper(ProcessGroups.Stat member, long leader) {
      return false;
    }

    @Override
    public String toString() {
      return "none";
    }
  };

  private final Path setsid;
  private final Path setpriv;

  /** Uses the given binaries. */
  public Unsandboxed(Path setsid, Path setpriv) {
    this.setsid = setsid;
    this.setpriv = setpriv;
  }

  @Override
  public List<String> command(LaunchSpec spec) {
    Map<String, String> mapping = new LinkedHashMap<>();
    List<LaunchSpec.Bind> binds = new ArrayList<>(spec.binds());
    // Longest container path first, so /app/data maps before /app.
    binds.sort(Comparator.comparingInt((LaunchSpec.Bind b) -> b.target().length()).reversed());
    for (LaunchSpec.Bind bind : binds) {
      if (!bind.tmpfs()) {
        mapping.put(bind.target(), bind.host().toString());
      }
    }
    mapping.put(spec.runMount(), spec.runDir().toString());
    List<String> cmd = new ArrayList<>(List.of(setsid.toString(), setpriv.toString(),
        "--pdeathsig", "KILL", "--"));
    for (String arg : spec.argv()) {
      cmd.add(map(arg, mapping));
    }
    return cmd;
  }

  /** Maps a container path at the start of {@code arg}, or after an '=', to the host. */
  static String map(String arg, Map<String, String> mapping) {
    int eq = arg.indexOf('=');
    String head = eq >= 0 && arg.startsWith("-") ? arg.substring(0, eq + 1) : "";
    String value = arg.substring(head.length());
    for (Map.Entry<String, String> entry : mapping.entrySet()) {
      String container = entry.getKey();
      if (value.equals(container) || value.startsWith(container.endsWith("/") ? container
          : container + "/")) {
        return head + entry.getValue() + value.substring(container.length());
      }
    }
    return arg;
  }

  @Override
  public Path directory(LaunchSpec spec) {
    String relative = spec.workingDir().startsWith(spec.runMount())
        ? spec.workingDir().substring(spec.runMount().length()).replaceFirst("^/", "") : "";
    return spec.runDir().resolve(relative);
  }

  @Override
  public String home() {
    return System.getProperty("user.home");
  }

  @Override
  public String binDir(Path hostBinDir) {
    return hostBinDir.toString();
  }

  @Override
  public boolean isolates() {
    return false;
  }

  @Override
  public boolean isWrapper(ProcessGroups.Stat member, long leader) {
    return false;
  }

  @Override
  public String toString() {
    return "none";
  }
}

package dev.fairing4j.deployer.local.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The host command lines that wrap a replica, with and without the sandbox. */
class SandboxCommandTest {
  private static final LaunchSpec SPEC = new LaunchSpec(
      List.of("/usr/bin/python3", "/app/train.py", "--out=/opt/models/m.pt"), "/app",
      Path.of("/state/run"), "/app",
      List.of(new LaunchSpec.Bind(Path.of("/vol/claim/sub"), "/opt/models/sub", true, false),
          new LaunchSpec.Bind(Path.of("/vol/claim"), "/opt/models", false, false),
          new LaunchSpec.Bind(null, "/cache", false, true)),
      Optional.of(Path.of("/state/bin")), List.of(Path.of("/root/.pyenv/versions/3.11")),
      List.of(), Optional.empty());

  @Test
  void aReplicaWithAHostGetsItsOwnHostNameAndHostsFileAfterTheSystemEtc() {
    LaunchSpec named = new LaunchSpec(SPEC.argv(), SPEC.workingDir(), SPEC.runDir(),
        SPEC.runMount(), SPEC.binds(), SPEC.binDir(), SPEC.hostDirs(), SPEC.devices(),
        Optional.of(new LaunchSpec.Host("el-worker-0", Path.of("/state/net/hosts"))));
    String line = String.join(" ", new Bubblewrap(Path.of("/usr/bin/bwrap"),
        Path.of("/usr/bin/setsid")).command(named));

    assertThat(line).contains("--unshare-uts --hostname el-worker-0 --ro-bind /state/net/hosts"
        + " /etc/hosts");
    assertThat(line.indexOf("--ro-bind /etc /etc")).isLessThan(line.indexOf("/etc/hosts"));
    assertThat(String.join(" ", new Bubblewrap(Path.of("/usr/bin/bwrap"),
        Path.of("/usr/bin/setsid")).command(SPEC))).doesNotContain("--hostname", "/etc/hosts");
  }

  @Test
  void bubblewrapBindsParentsBeforeChildrenAndEndsWithTheCommand() {
    List<String> cmd = new Bubblewrap(Path.of("/usr/bin/bwrap"), Path.of("/usr/bin/setsid"))
        .command(SPEC);
    String line = String.join(" ", cmd);

    assertThat(cmd.subList(0, 4)).containsExactly("/usr/bin/setsid", "/usr/bin/bwrap",
        "--die-with-parent", "--unshare-pid");
    assertThat(line).contains("--tmpfs / ", "--ro-bind /usr /usr", "--ro-bind /etc /etc",
        "--tmpfs /tmp", "--tmpfs /dev/shm", "--bind /state/run /app",
        "--ro-bind /state/bin /.fairing4j/bin",
        "--ro-bind /root/.pyenv/versions/3.11 /root/.pyenv/versions/3.11", "--tmpfs /cache");
    assertThat(line.indexOf("--bind /vol/claim /opt/models"))
        .isLessThan(line.indexOf("--ro-bind /vol/claim/sub /opt/models/sub"));
    assertThat(line).doesNotContain("--unshare-net", "--new-session");
    assertThat(cmd.subList(cmd.size() - 6, cmd.size())).containsExactly("--chdir", "/app", "--",
        "/usr/bin/python3", "/app/train.py", "--out=/opt/models/m.pt");
  }

  @Test
  void withoutTheSandboxContainerPathsInTheCommandAreMapped() {
    Unsandboxed plain = new Unsandboxed(Path.of("/usr/bin/setsid"), Path.of("/usr/bin/setpriv"));

    assertThat(plain.command(SPEC)).containsExactly("/usr/bin/setsid", "/usr/bin/setpriv",
        "--pdeathsig", "KILL", "--", "/usr/bin/python3", "/state/run/train.py",
        "--out=/vol/claim/m.pt");
    assertThat(plain.directory(SPEC)).isEqualTo(Path.of("/state/run"));
    assertThat(Unsandboxed.map("/application", Map.of("/app", "/x"))).isEqualTo("/application");
  }
}

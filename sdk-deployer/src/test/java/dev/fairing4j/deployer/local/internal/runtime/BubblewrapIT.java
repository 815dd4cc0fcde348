package dev.fairing4j.deployer.local.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * The sandbox itself: what it costs to start, and that it isolates what it promises (system
 * directories read-only, the run directory and volumes writable at their container paths,
 * nothing else of the host's files writable).
 */
@Timeout(60)
class BubblewrapIT {
  @TempDir
  Path run;
  @TempDir
  Path volume;

  @Test
  void startingInTheSandboxCostsTensOfMilliseconds() throws Exception {
    Sandbox sandbox = sandbox();
    List<String> wrapped = sandbox.command(spec(List.of("/bin/true")));
    List<Long> direct = new ArrayList<>();
    List<Long> sandboxed = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      // interleaved, so both see the same machine load
      direct.add(time(List.of("/bin/true")));
      sandboxed.add(time(wrapped));
    }
    long overhead = median(sandboxed) - median(direct);
    System.out.println("[measure] bwrap start: median " + median(sandboxed) / 1000
        + " us sandboxed vs " + median(direct) / 1000 + " us direct; overhead "
        + overhead / 1000 + " us");
    assertThat(overhead).isLessThan(TimeUnit.MILLISECONDS.toNanos(100));
  }

  @Test
  void theSandboxIsolatesTheHostsFiles() throws Exception {
    String script = String.join("; ",
        "touch /usr/fairing-probe 2>/dev/null && echo usr-writable",
        "touch /etc/fairing-probe 2>/dev/null && echo etc-writable",
        "mkdir -p /opt/fairing-probe && echo opt-tmpfs",
        "test -e /work && echo work-visible",
        "test -e /root/.m2 && echo home-visible",
        "touch /app/in-run && echo run-writable",
        "touch /data/in-volume && echo volume-writable",
        "echo pwd=$(pwd)");
    Process p = new ProcessBuilder(sandbox().command(spec(List.of("/bin/sh", "-c", script))))
        .directory(run.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();

    assertThat(out).contains("run-writable", "volume-writable", "pwd=/app", "opt-tmpfs")
        .doesNotContain("usr-writable", "etc-writable", "work-visible", "home-visible");
    assertThat(run.resolve("in-run")).exists();
    assertThat(volume.resolve("in-volume")).exists();
    assertThat(Path.of("/opt/fairing-probe")).doesNotExist();
  }

  private LaunchSpec spec(List<String> argv) {
    return new LaunchSpec(argv, "/app", run, "/app",
        List.of(new LaunchSpec.Bind(volume, "/data", false, false)), Optional.empty(),
        List.of(), List.of(), Optional.empty());
  }

  private static Sandbox sandbox() {
    for (String binary : List.of("bwrap", "setsid")) {
      if (HostTools.find(binary).isEmpty()) {
        throw new AssertionFailedError("'" + binary + "' is not installed; install it:"
            + " apt-get install " + (binary.equals("bwrap") ? "bubblewrap" : "util-linux"));
      }
    }
    return new Bubblewrap(HostTools.find("bwrap").orElseThrow(),
        HostTools.find("setsid").orElseThrow());
  }

  private long time(List<String> command) throws Exception {
    long start = System.nanoTime();
    Process p = new ProcessBuilder(command).directory(run.toFile())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    return System.nanoTime() - start;
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

}

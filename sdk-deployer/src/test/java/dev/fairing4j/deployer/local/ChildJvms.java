package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link ChildJvmJob} in a JVM of its own and reads what it reports, for the tests of what
 * happens to a local job when the JVM that submitted it goes.
 */
final class ChildJvms {
  private ChildJvms() {}

  /**
   * Starts the child JVM with SIGINT at {@code sigint} ({@code default}: as a terminal's
   * foreground job has it, whatever this JVM was started with; {@code ignore}: as {@code &} in a
   * non-interactive shell leaves it).
   */
  static Process start(Path state, Path volumes, String job, String mode, String sigint)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> command = new ArrayList<>(List.of("/usr/bin/env", "--" + sigint + "-signal=INT",
        java, "-cp", System.getProperty("java.class.path"), ChildJvmJob.class.getName(),
        state.toString(), volumes.toString(), job, mode));
    return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  /** Waits for the child's READY line; the pids of its job's processes, all alive. */
  static List<Long> readyPids(Process child) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8));
    String ready = CompletableFuture.supplyAsync(() -> {
      try {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith("READY ")) {
            return line;
          }
        }
        return "";
      } catch (IOException e) {
        return "";
      }
    }).get(60, TimeUnit.SECONDS);
    assertThat(ready).as("the child JVM started its job").startsWith("READY ");
    List<Long> pids = Arrays.stream(ready.substring(6).split(",")).map(Long::parseLong).toList();
    assertThat(pids).allMatch(LocalClusterFailureIT::alive);
    return pids;
  }

  /** Sends {@code signal} to the child JVM and waits for it to exit. */
  static void signal(Process child, String signal) throws Exception {
    new ProcessBuilder("kill", "-" + signal, String.valueOf(child.pid())).inheritIO().start()
        .waitFor(10, TimeUnit.SECONDS);
    assertThat(child.waitFor(20, TimeUnit.SECONDS)).as("the child JVM exits on SIG" + signal)
        .isTrue();
  }

  /** Kills the child JVM if it still runs. */
  static void kill(Process child) throws InterruptedException {
    child.destroyForcibly();
    child.waitFor(10, TimeUnit.SECONDS);
  }

  /** Waits (at most 5 s) until none of {@code pids} runs. */
  static void awaitGone(List<Long> pids) throws InterruptedException {
    Instant end = Instant.now().plusSeconds(5);
    while (pids.stream().anyMatch(LocalClusterFailureIT::alive) && Instant.now().isBefore(end)) {
      Thread.sleep(20);
    }
  }
}

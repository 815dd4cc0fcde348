package dev.fairing4j.deployer.local.internal.runtime;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * One run of one replica: a process in its own process group, its output pumped into the replica's
 * log file by a daemon thread. The exit is reported only after the output has closed, so every
 * line is in the log before the status says the replica ended.
 */
public final class ReplicaProcess {
  private final Process process;
  private final long pid;
  private final Instant started;
  private final ReplicaLauncher launcher;
  private final String podName;

  private ReplicaProcess(Process process, Instant started, ReplicaLauncher launcher,
      String podName) {
    this.process = process;
    this.pid = process.pid();
    this.started = started;
    this.launcher = launcher;
    this.podName = podName;
  }

  /**
   * Starts {@code command} with exactly {@code env} (nothing inherited from the JVM) and reports
   * its exit code to {@code onExit} on the pump thread.
   */
  public static ReplicaProcess start(String podName, List<String> command, Path directory,
      Map<String, String> env, Path logFile, ReplicaLauncher launcher, IntConsumer onExit)
      throws IOException {
    Files.createDirectories(logFile.getParent());
    ProcessBuilder builder = new ProcessBuilder(command)
        .directory(directory.toFile())
        .redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    // A container sees only its own environment, never the JVM's.
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = Launcher.start(builder);
    Instant started = process.info().startInstant().orElseGet(Instant::now);
    ReplicaProcess replica = new ReplicaProcess(process, started, launcher, podName);
    Thread pump = new Thread(() -> {
      LogPump.copy(process.getInputStream(), logFile);
      int code = replica.awaitExit();
      // bwrap's outer process reports the exit before its pid-1 helper is gone; report the
      // replica ended only once its whole group has, so "ended" means no process is left.
      if (!ProcessGroups.awaitEmpty(replica.pid, Duration.ofSeconds(2))) {
        ProcessGroups.signal(replica.pid, true, m -> true);
        ProcessGroups.awaitEmpty(replica.pid, Duration.ofSeconds(5));
      }
      onExit.accept(code);
    }, "fairing4j-log-" + podName);
    pump.setDaemon(true);
    pump.start();
    // When the main process ends, whatever it left in its group ends too, as a container's
    // processes do; otherwise a leftover child holding the output open would hide the exit.
    process.onExit().thenRun(() -> ProcessGroups.signal(replica.pid, true, m -> true));
    return replica;
  }

  /** The process id, which is also the process-group id. */
  public long pid() {
    return pid;
  }

  /** When the process started. */
  public Instant started() {
    return started;
  }

  /** Asks the replica's own processes to stop (SIGTERM), leaving the launcher's wrapper be. */
  public void terminate() {
    ProcessGroups.signal(pid, false, m -> !launcher.isWrapper(m, pid));
  }

  /**
   * Kills everything in the group, wrapper included (SIGKILL), and whatever the launcher runs
   * outside it (a podman container).
   */
  public void kill() {
    process.destroyForcibly();
    ProcessGroups.signal(pid, true, m -> true);
    launcher.removeLeftovers(podName);
  }

  /** The pids of the process and everything it started, for callers that check they are gone. */
  public List<Long> tree() {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(process.toHandle()),
        process.descendants()).map(ProcessHandle::pid).toList();
  }

  private int awaitExit() {
    while (true) {
      try {
        return process.waitFor();
      } catch (InterruptedException e) {
        // the pump thread is never interrupted on purpose; keep waiting for the exit code
      }
    }
  }
}

package dev.fairing4j.core.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Starts long-running helper processes (a registry) so that they die with the test JVM, even when
 * the JVM is SIGKILLed and no shutdown hook runs.
 */
final class ChildProcesses {
  /*
   * The kernel sends the parent-death signal when the *thread* that forked the child exits, not
   * the process. A JUnit or pool thread may end long before the JVM, killing the child early, so
   * every child is forked from this one thread, which lives as long as the JVM.
   */
  private static final ExecutorService LAUNCHER = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "fairing4j-child-launcher");
    t.setDaemon(true);
    return t;
  });

  private ChildProcesses() {}

  /** Starts {@code command} under {@code setpriv --pdeathsig KILL} when setpriv is installed. */
  static Process start(ProcessBuilder builder) throws IOException {
    List<String> command = new ArrayList<>();
    Tools.find("setpriv").ifPresent(setpriv -> command.addAll(
        List.of(setpriv.toString(), "--pdeathsig", "KILL", "--")));
    command.addAll(builder.command());
    ProcessBuilder wrapped = builder.command(command);
    try {
      return LAUNCHER.submit(wrapped::start).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting " + command, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException("cannot start " + command, e.getCause());
    }
  }

  /** SIGTERM, then SIGKILL after {@code grace}; returns once the process is gone. */
  static void stop(Process process, Duration grace) {
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}

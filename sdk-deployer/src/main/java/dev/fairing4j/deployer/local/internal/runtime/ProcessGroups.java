package dev.fairing4j.deployer.local.internal.runtime;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Signals and watches whole process groups. Every replica runs in its own session (via
 * {@code setsid}), so its process id is also its group id and every descendant (torchrun's
 * workers, DataLoader workers) shares the group: stopping the group stops all of them, whichever
 * JVM asks. Members are found by reading {@code /proc}, signals go through {@link ProcessHandle}
 * (which checks the start time, so a recycled pid is never hit).
 */
public final class ProcessGroups {
  private ProcessGroups() {}

  /**
   * One line of {@code /proc/<pid>/stat}, as far as needed.
   *
   * @param pid the process id
   * @param command the command name (truncated to 15 characters by the kernel)
   * @param state the state letter; Z for a zombie
   * @param parent the parent process id
   * @param group the process group id
   */
  public record Stat(long pid, String command, char state, long parent, long group) {}

  /** The live (non-zombie) members of group {@code pgid}. */
  public static List<Stat> members(long pgid) {
    List<Stat> members = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path dir : dirs) {
        stat(Long.parseLong(dir.getFileName().toString()))
            .filter(s -> s.group() == pgid && s.state() != 'Z' && s.state() != 'X')
            .ifPresent(members::add);
      }
    } catch (IOException | NumberFormatException e) {
      // a process that vanished mid-scan is simply not a member any more
    }
    return members;
  }

  /** The stat line of {@code pid}, if the process exists. */
  public static Optional<Stat> stat(long pid) {
    try {
      String line = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // The command sits in parentheses and may itself contain spaces and parentheses.
      int open = line.indexOf('(');
      int close = line.lastIndexOf(')');
      String[] rest = line.substring(close + 2).split(" ");
      return Optional.of(new Stat(pid, line.substring(open + 1, close), rest[0].charAt(0),
          Long.parseLong(rest[1]), Long.parseLong(rest[2])));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Sends SIGTERM ({@code force} false) or SIGKILL to the members {@code which} selects. */
  public static void signal(long pgid, boolean force, Predicate<Stat> which) {
    for (Stat member : members(pgid)) {
      if (which.test(member)) {
        ProcessHandle.of(member.pid()).ifPresent(h -> {
          if (force) {
            h.destroyForcibly();
          } else {
            h.destroy();
          }
        });
      }
    }
  }

  /** Waits until group {@code pgid} has no live member; true if it emptied in time. */
  public static boolean awaitEmpty(long pgid, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (!members(pgid).isEmpty()) {
      if (Instant.now().isAfter(deadline)) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return members(pgid).isEmpty();
      }
    }
    return true;
  }

  /**
   * Whether {@code pid} runs and is the process that started at {@code started} (so a pid the
   * kernel recycled after the replica ended does not count). A zombie does not run: it has
   * exited and waits for init to collect it, which a container's minimal init may do seconds
   * later, though {@link ProcessHandle#isAlive()} still says true.
   */
  public static boolean isAlive(long pid, Optional<Instant> started) {
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
        .filter(h -> stat(pid).map(s -> s.state() != 'Z' && s.state() != 'X').orElse(false))
        .filter(h -> started.isEmpty() || h.info().startInstant()
            .map(s -> sameStart(s, started.get())).orElse(true))
        .isPresent();
  }

  /**
   * Whether two start times {@link ProcessHandle.Info#startInstant()} gave, possibly in two
   * JVMs, are the same process's. The JDK computes them from the process's start in clock ticks
   * since boot plus the boot time, which each JVM reads once, in whole seconds, from
   * {@code /proc/stat}'s {@code btime}; the kernel derives that from the wall clock, so as the
   * clock is slewed it flips by a second, and a JVM started after the flip sees every process
   * start exactly one second away from what an older JVM recorded (seen in CI: 7 local jobs
   * taken for orphans of a dead supervisor). A recycled pid starts once the pid space wrapped,
   * far more than two seconds later.
   */
  public static boolean sameStart(Instant one, Instant other) {
    return Math.abs(Duration.between(one, other).toMillis()) < 2000;
  }
}

package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.internal.JvmWide;
import java.io.File;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes podman containers die with the JVM that supervises them, as sandboxed replicas do.
 *
 * <p>Why: a container runs under conmon, in a session of its own, so the parent-death signal that
 * ends {@code podman run} with the JVM does not reach it. Two measures cover that:
 * <ul>
 *   <li>a watchdog per JVM: a sleeping shell started with {@code setpriv --pdeathsig TERM}; when
 *       the JVM dies, even by SIGKILL, the kernel sends it SIGTERM and it removes every container
 *       labelled with this JVM's id;
 *   <li>a sweep at the first podman submit of a JVM: containers labelled by a JVM that no longer
 *       runs (its watchdog was killed with it, say by a SIGKILL to the whole process group) are
 *       removed.
 * </ul>
 */
public final class PodmanReaper {
  private static final Logger LOG = LoggerFactory.getLogger(PodmanReaper.class);
  @JvmWide(why = "one watchdog per podman installation reaps what any job of "
      + "this JVM left",
      bound = "the podman binary and configuration pairs used (one in "
      + "practice)")
  private static final Set<String> STARTED = new HashSet<>();
  /** This JVM, as {@code pid@startMillis}: a recycled pid never matches. */
  public static final String SUPERVISOR = supervisorId(ProcessHandle.current());

  private PodmanReaper() {}

  /** Sweeps and starts the watchdog for {@code tool}, once per JVM. */
  public static synchronized void ensureStarted(PodmanTool tool) {
    String key = tool.binary() + "|" + tool.conf();
    if (STARTED.contains(key)) {
      return;
    }
    sweep(tool);
    startWatchdog(tool);
    STARTED.add(key);
  }

  static String supervisorId(ProcessHandle process) {
    return process.pid() + "@" + process.info().startInstant().map(Instant::toEpochMilli)
        .orElse(0L);
  }

  private static void sweep(PodmanTool tool) {
    List<String> orphans = new ArrayList<>();
    for (String line : tool.list(PodmanLauncher.MANAGED_LABEL,
        "{{.Names}} {{index .Labels \"" + PodmanLauncher.SUPERVISOR_LABEL + "\"}}")) {
      String[] parts = line.trim().split(" ");
      if (parts.length == 2 && !alive(parts[1])) {
        orphans.add(parts[0]);
      }
    }
    if (!orphans.isEmpty()) {
      LOG.info("removing podman containers left by JVMs that no longer run: {}", orphans);
      tool.remove(orphans);
    }
  }

  private static boolean alive(String supervisor) {
    int at = supervisor.indexOf('@');
    if (at < 0) {
      return true;  // not ours to judge
    }
    try {
      long pid = Long.parseLong(supervisor.substring(0, at));
      long started = Long.parseLong(supervisor.substring(at + 1));
      Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
      return handle.map(h -> h.info().startInstant().map(s -> ProcessGroups.sameStart(s,
          Instant.ofEpochMilli(started))).orElse(true)).orElse(false);
    } catch (NumberFormatException e) {
      return true;
    }
  }

  private static void startWatchdog(PodmanTool tool) {
    Optional<java.nio.file.Path> setsid = HostTools.find("setsid");
    Optional<java.nio.file.Path> setpriv = HostTools.find("setpriv");
    if (setsid.isEmpty() || setpriv.isEmpty()) {
      LOG.warn("setsid/setpriv missing (apt-get install util-linux): podman containers will not"
          + " be removed if this JVM is killed");
      return;
    }
    // $0 is podman; "kill $!" ends the sleep, or it would linger an hour.
    String script = "trap '\"$0\" rm --force --time 0 --filter label="
        + PodmanLauncher.SUPERVISOR_LABEL + "=" + SUPERVISOR
        + " >/dev/null 2>&1; kill $! 2>/dev/null; exit 0' TERM; "
        + "while :; do sleep 3600 & wait $!; done";
    // Its own session: a Ctrl-C to the JVM's terminal must not end the watchdog before the JVM.
    ProcessBuilder builder = new ProcessBuilder(setsid.get().toString(),
        setpriv.get().toString(), "--pdeathsig", "TERM", "--", "/bin/sh", "-c", script,
        tool.binary().toString())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().clear();
    builder.environment().putAll(tool.env());
    try {
      // from the launcher thread: the parent-death signal follows the thread that forks
      Launcher.start(builder);
    } catch (IOException e) {
      LOG.warn("cannot start the podman watchdog: podman containers will not be removed if this"
          + " JVM is killed", e);
    }
  }
}

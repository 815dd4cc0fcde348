package dev.fairing4j.deployer.local.internal.supervisor;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.deployer.local.internal.runtime.HostTools;
import dev.fairing4j.deployer.local.internal.runtime.SignalDefaults;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Supervisor processes ({@link SupervisorMain}) for this JVM's local jobs, one kept booted and
 * waiting for the next submit. Why: a fresh JVM needs a good part of a second before it can start
 * a replica (start-up, then Jackson), which a job started from an in-JVM supervisor never paid. A
 * waiting spare has paid it already; the first submit of a JVM overlaps the start with the job's
 * preparation instead.
 *
 * <p>The next spare boots at once when the machine has a core more than the job that took the
 * last one has replicas. Otherwise it boots when that job ends, or {@value #BOOT_AFTER_S} s after
 * it took the spare, whichever comes first: a JVM's boot takes about 0.6 CPU seconds, and booted
 * beside replicas that fill every core as they start (and import torch), it slowed a 6 s two-rank
 * DDP epoch by 1.2 s on a 2-core machine ({@code scripts/bench.sh local}).
 *
 * <p>A supervisor process is a JVM on the SDK's own class path (the few jars it loads, found where
 * this JVM loaded them, so it works in a notebook kernel too), in a session of its own
 * ({@code setsid}: a Ctrl-C in the user's terminal does not reach it), with every signal at its
 * default ({@link SignalDefaults}). It reads its job from a pipe: when this JVM exits, or retires
 * a spare unused for five minutes, or its runtime closes, the pipe closes and a waiting spare
 * exits. Each {@link dev.fairing4j.core.FairingRuntime} keeps its own spare.
 */
final class SpareSupervisors implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SpareSupervisors.class);
  private static final Duration IDLE = Duration.ofMinutes(5);
  /** Past the start of most jobs' replicas: the sandbox, the interpreter and its imports. */
  static final long BOOT_AFTER_S = 10;
  /** Small and quick to start: one job's supervision needs little heap and no C2. */
  private static final List<String> JVM_OPTIONS = List.of("-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1", "-Xss512k", "-Xmx256m", "-XX:+ExitOnOutOfMemoryError",
      // no hsperfdata file in /tmp, which a SIGKILLed JVM would leave behind
      "-XX:-UsePerfData",
      // its log is the job's supervisor.log: no notice there that SLF4J has no provider
      "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider");
  /** A user's agent or debugger options are meant for the user's JVM, not this one. */
  private static final List<String> DROPPED_ENV =
      List.of("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH");
  /** Starts and retires this runtime's spare; its one daemon thread ends with {@link #close()}. */
  private final ScheduledExecutorService keeper;
  /** The booted supervisor waiting for the next submit of this runtime, if any. */
  private Process spare;
  private ScheduledFuture<?> retirement;
  private boolean closed;

  private SpareSupervisors(Owner owner) {
    keeper = Executors.newSingleThreadScheduledExecutor(
        task -> owner.thread("fairing4j-spare-supervisor", task));
  }

  /** The spares of the runtime the calling thread submits for. */
  private static SpareSupervisors current() {
    Owner owner = Owner.current();
    return owner.part(SpareSupervisors.class, () -> new SpareSupervisors(owner));
  }

  /**
   * A supervisor process, booted or booting, that waits for its job on stdin; another spare is
   * started for the next submit, at once or once the job's replicas have started (see above).
   *
   * @param log where a process started for this job writes what goes wrong before it has its job
   *     (a spare's output goes nowhere until then; one that failed to boot is not taken)
   * @param replicas how many replica processes the job starts
   * @throws FairingException when no JVM can be started
   */
  static Process take(Path log, int replicas) {
    return current().takeSpare(log, replicas);
  }

  private synchronized Process takeSpare(Path log, int replicas) {
    Process taken = spare;
    spare = null;
    if (retirement != null) {
      retirement.cancel(false);
      retirement = null;
    }
    if (taken == null || !taken.isAlive()) {
      taken = start(ProcessBuilder.Redirect.appendTo(log.toFile()));
    }
    if (!closed && Runtime.getRuntime().availableProcessors() > replicas) {
      keeper.execute(this::replenish);
    } else if (!closed) {
      ScheduledFuture<?> later = keeper.schedule(this::replenish, BOOT_AFTER_S,
          TimeUnit.SECONDS);
      taken.onExit().thenRun(() -> {
        if (later.cancel(false)) {
          replenishSoon();
        }
      });
    }
    return taken;
  }

  private synchronized void replenishSoon() {
    if (!closed) {
      keeper.execute(this::replenish);
    }
  }

  private synchronized void replenish() {
    if (closed || spare != null && spare.isAlive()) {
      return;
    }
    try {
      spare = start(ProcessBuilder.Redirect.DISCARD);
      retirement = keeper.schedule(this::retire, IDLE.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      LOG.debug("cannot start a spare supervisor process; the next submit starts its own", e);
    }
  }

  /** Retires the waiting spare (its pipe closes, so it exits) and ends the keeper thread. */
  @Override
  public synchronized void close() {
    closed = true;
    if (retirement != null) {
      retirement.cancel(false);
      retirement = null;
    }
    retire();
    keeper.shutdownNow();
  }

  @Override
  public String toString() {
    return "the spare local supervisor";
  }

  private synchronized void retire() {
    if (spare != null) {
      try {
        spare.getOutputStream().close();
      } catch (IOException e) {
        spare.destroyForcibly();
      }
      spare = null;
    }
  }

  private static Process start(ProcessBuilder.Redirect output) {
    List<String> command = new ArrayList<>();
    command.add(HostTools.require("setsid", "util-linux", "LocalCluster.tiedToJvm()")
        .toString());
    command.addAll(SignalDefaults.prefix());
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.add("-cp");
    command.add(classPath());
    command.add(SupervisorMain.class.getName());
    ProcessBuilder builder = new ProcessBuilder(command)
        .directory(new File("/"))
        .redirectErrorStream(true)
        .redirectOutput(output);
    Map<String, String> env = builder.environment();
    DROPPED_ENV.forEach(env::remove);
    try {
      return builder.start();
    } catch (IOException e) {
      throw FairingException.of("start the local job's supervisor", command.get(0) + " ... "
          + SupervisorMain.class.getSimpleName(), e.getMessage(),
          "check the JVM at " + System.getProperty("java.home")
              + ", or run the job in this JVM with LocalCluster.tiedToJvm()", e);
    }
  }

  /**
   * The jars (or class directories) of the SDK and the libraries the supervisor uses, from where
   * this JVM loaded them; this JVM's class path when one cannot be located as a file.
   */
  static String classPath() {
    Set<String> entries = new LinkedHashSet<>();
    for (Class<?> type : List.of(SupervisorMain.class, FairingException.class,
        ObjectMapper.class, JsonFactory.class, JsonIgnoreProperties.class,
        LoggerFactory.class)) {
      Optional<Path> location = location(type);
      if (location.isEmpty()) {
        return System.getProperty("java.class.path");
      }
      entries.add(location.get().toString());
    }
    return String.join(File.pathSeparator, entries);
  }

  private static Optional<Path> location(Class<?> type) {
    CodeSource source = type.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      return Optional.empty();
    }
    try {
      java.net.URI uri = source.getLocation().toURI();
      if (!"file".equals(uri.getScheme())) {
        return Optional.empty();
      }
      Path path = Path.of(uri);
      return Files.exists(path) ? Optional.of(path) : Optional.empty();
    } catch (URISyntaxException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}

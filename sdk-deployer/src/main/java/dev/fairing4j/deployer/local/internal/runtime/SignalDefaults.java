package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.internal.JvmWide;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Starts the local cluster's processes with every signal at its default disposition, as a
 * container starts. Why: a program started with {@code &} from a non-interactive shell has SIGINT
 * and SIGQUIT ignored, and an ignored signal stays ignored across fork and exec; without a reset
 * a replica of a JVM started that way would ignore SIGINT, which no container does. The reset is
 * coreutils' {@code env --default-signal} (8.31 and later), which execs in place, so the pid a
 * supervisor knows stays the replica's.
 */
public final class SignalDefaults {
  @JvmWide(why = "a fact of this machine's coreutils, found once",
      bound = "one list")
  private static volatile List<String> prefix;

  private SignalDefaults() {}

  /** {@code command} run with every signal at its default disposition, where env can. */
  public static List<String> wrap(List<String> command) {
    List<String> wrapped = new java.util.ArrayList<>(prefix());
    wrapped.addAll(command);
    return wrapped;
  }

  /** {@code env --default-signal} where this machine's env has it, else nothing. */
  public static List<String> prefix() {
    List<String> p = prefix;
    if (p == null) {
      p = probe().map(env -> List.of(env.toString(), "--default-signal")).orElse(List.of());
      prefix = p;
    }
    return p;
  }

  private static Optional<Path> probe() {
    Optional<Path> env = HostTools.find("env");
    if (env.isEmpty()) {
      return Optional.empty();
    }
    try {
      Process p = new ProcessBuilder(env.get().toString(), "--default-signal", "true")
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return env;
      }
      p.destroyForcibly();
    } catch (IOException e) {
      // an env that cannot run cannot reset anything either
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Optional.empty();
  }
}

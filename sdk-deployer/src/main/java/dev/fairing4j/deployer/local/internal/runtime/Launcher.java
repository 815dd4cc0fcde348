package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.internal.JvmWide;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Starts every process of the local cluster from one thread that lives as long as the JVM.
 *
 * <p>Why: the kernel delivers the parent-death signal ({@code bwrap --die-with-parent},
 * {@code setpriv --pdeathsig KILL}) when the <em>thread</em> that forked the child exits, not the
 * process. A replica started from a caller's thread (a notebook cell, a JUnit worker, a supervisor
 * that is done) would be killed the moment that thread ends.
 */
public final class Launcher {
  @JvmWide(why = "the thread that forks a replica must outlive it (see the class "
      + "comment), whoever started it",
      bound = "one daemon thread")
  private static final ExecutorService THREAD = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "fairing4j-local-launcher");
    t.setDaemon(true);
    return t;
  });

  private Launcher() {}

  /** Starts {@code builder} on the launcher thread. */
  public static Process start(ProcessBuilder builder) throws IOException {
    try {
      return THREAD.submit(builder::start).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting " + builder.command().get(0), e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException("cannot start " + builder.command(), e.getCause());
    }
  }
}

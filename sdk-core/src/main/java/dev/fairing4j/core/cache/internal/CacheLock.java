package dev.fairing4j.core.cache.internal;

import dev.fairing4j.core.internal.JvmWide;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps pruning away from caches a build is using, across threads and processes: builds hold the
 * cache root's lock file shared while they read or write entries, a pruner holds it exclusively
 * and only when no build does. A build never waits for more than one prune (a prune is quick);
 * a pruner gives up after its wait rather than stall a build.
 *
 * <p>Why counted here: a {@link FileLock} belongs to the whole JVM and a second lock on the same
 * file from the same JVM fails, so the JVM takes the shared file lock once for all its builds.
 */
public final class CacheLock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CacheLock.class);
  private static final String FILE = ".lock";

  @JvmWide(why = "a FileLock belongs to the whole JVM, so the JVM's holders of a cache root are "
      + "counted in one place", bound = "one entry per cache root used (one in practice)")
  private static final Map<Path, Holder> HOLDERS = new HashMap<>();

  /** This JVM's hold on one cache root. */
  private static final class Holder {
    int shared;
    boolean exclusive;
    FileChannel channel;
    FileLock fileLock;
  }

  private final Path root;
  private final boolean exclusive;
  private boolean released;

  private CacheLock(Path root, boolean exclusive) {
    this.root = root;
    this.exclusive = exclusive;
  }

  /**
   * A shared hold on the caches under {@code root}, for a build; waits while a prune runs. A
   * root that cannot hold a lock file (read-only) gives a hold that guards this JVM only.
   */
  public static CacheLock shared(Path root) {
    Path key = root.toAbsolutePath().normalize();
    Holder holder = holder(key);
    synchronized (holder) {
      while (holder.exclusive) {
        try {
          holder.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while a cache prune ran", e);
        }
      }
      if (holder.shared++ == 0) {
        open(key, holder, true, Duration.ZERO);
      }
    }
    return new CacheLock(key, false);
  }

  /**
   * The exclusive hold a pruner needs, waiting up to {@code wait}; empty while a build in this or
   * another process holds the caches.
   */
  public static Optional<CacheLock> exclusive(Path root, Duration wait) {
    Path key = root.toAbsolutePath().normalize();
    Holder holder = holder(key);
    long deadline = System.nanoTime() + wait.toNanos();
    synchronized (holder) {
      while (holder.shared > 0 || holder.exclusive) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return Optional.empty();
        }
        try {
          holder.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Optional.empty();
        }
      }
      holder.exclusive = true;
      if (!open(key, holder, false, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
        holder.exclusive = false;
        holder.notifyAll();
        return Optional.empty();
      }
    }
    return Optional.of(new CacheLock(key, true));
  }

  private static Holder holder(Path key) {
    synchronized (HOLDERS) {
      return HOLDERS.computeIfAbsent(key, k -> new Holder());
    }
  }

  /** Takes the file lock; false when another process holds it past {@code wait} (exclusive). */
  private static boolean open(Path root, Holder holder, boolean shared, Duration wait) {
    try {
      Files.createDirectories(root);
      holder.channel = FileChannel.open(root.resolve(FILE), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.READ);
      if (shared) {
        holder.fileLock = holder.channel.lock(0, Long.MAX_VALUE, true);
        return true;
      }
      long deadline = System.nanoTime() + wait.toNanos();
      while (true) {
        holder.fileLock = holder.channel.tryLock(0, Long.MAX_VALUE, false);
        if (holder.fileLock != null) {
          return true;
        }
        if (System.nanoTime() > deadline) {
          closeChannel(holder);
          return false;
        }
        Thread.sleep(50);
      }
    } catch (IOException | OverlappingFileLockException | UnsupportedOperationException e) {
      LOG.debug("cannot lock {} ({}); the caches are guarded in this JVM only", root, e.toString());
      closeChannel(holder);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeChannel(holder);
      return false;
    }
  }

  private static void closeChannel(Holder holder) {
    try {
      if (holder.fileLock != null) {
        holder.fileLock.release();
      }
      if (holder.channel != null) {
        holder.channel.close();
      }
    } catch (IOException e) {
      LOG.debug("closing a cache lock: {}", e.toString());
    }
    holder.fileLock = null;
    holder.channel = null;
  }

  /** Releases this hold; the file lock goes with the JVM's last hold. */
  @Override
  public void close() {
    Holder holder = holder(root);
    synchronized (holder) {
      if (released) {
        return;
      }
      released = true;
      if (exclusive) {
        holder.exclusive = false;
        closeChannel(holder);
      } else if (--holder.shared == 0) {
        closeChannel(holder);
      }
      holder.notifyAll();
    }
  }
}

package dev.fairing4j.core.cache.internal;

import dev.fairing4j.core.cache.CacheLimits;
import dev.fairing4j.core.cache.Caches;
import dev.fairing4j.core.internal.Owner;
import java.nio.file.Path;

/**
 * How builds and preprocessors hold the cache they use: a shared {@link CacheLock} on the user's
 * cache root when the directory is one of its caches (those are what {@link Caches} prunes), and
 * nothing for a directory the user chose elsewhere, which fairing4j never prunes.
 */
public final class CacheUse {
  private CacheUse() {}

  /** A hold on the caches while {@code cacheDirectory} is read or written; close it after. */
  public static AutoCloseableHold hold(Path cacheDirectory) {
    Path root = Caches.user().root();
    Path parent = cacheDirectory.toAbsolutePath().normalize().getParent();
    if (parent == null || !parent.equals(root)) {
      return () -> { };
    }
    CacheLock lock = CacheLock.shared(root);
    return lock::close;
  }

  /**
   * Prunes the user's caches when due, if {@code cacheDirectory} is one of them, to the limits
   * of the runtime the calling thread works for.
   */
  public static void pruneIfDue(Path cacheDirectory) {
    Caches user = Caches.user();
    Path parent = cacheDirectory.toAbsolutePath().normalize().getParent();
    if (parent != null && parent.equals(user.root())) {
      user.pruneIfDue(limits());
    }
  }

  /** The cache limits of the runtime the calling thread works for. */
  public static CacheLimits limits() {
    return Owner.current().setting(CacheLimits.class).orElseGet(CacheLimits::defaults);
  }

  /** A hold whose release throws nothing. */
  @FunctionalInterface
  public interface AutoCloseableHold extends AutoCloseable {
    @Override
    void close();
  }
}

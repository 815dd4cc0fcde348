package dev.fairing4j.core.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A thread-safe map with a size limit and, optionally, an age limit: the least recently used
 * entry goes when a new one would exceed the size, and an entry older than the age is not
 * returned. For the SDK's caches (registry schemes and tokens, known blobs, interpreter probes),
 * which a service that runs for months must not let grow; a runtime's cache is one of its parts
 * ({@link Owner#part}), and closing it forgets everything.
 *
 * <p>Why not Caffeine or Guava's cache: sdk-core and sdk-deployer depend on neither, and a few
 * small maps with one lock each are not worth a dependency of the whole SDK. Values are computed
 * outside the lock by callers that may compute twice; this class never runs user code under it.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class BoundedCache<K, V> implements AutoCloseable {
  private record Entry<V>(V value, long writtenNanos) {}

  private final int maxEntries;
  private final long maxAgeNanos;
  private final LongSupplier nanoTime;
  private final LinkedHashMap<K, Entry<V>> entries;

  private BoundedCache(int maxEntries, Duration maxAge, LongSupplier nanoTime) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be at least 1, not " + maxEntries);
    }
    this.maxEntries = maxEntries;
    this.maxAgeNanos = maxAge.isZero() ? Long.MAX_VALUE : maxAge.toNanos();
    this.nanoTime = nanoTime;
    this.entries = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, Entry<V>> eldest) {
        return size() > BoundedCache.this.maxEntries;
      }
    };
  }

  /** A cache of at most {@code maxEntries} entries, however old. */
  public static <K, V> BoundedCache<K, V> ofSize(int maxEntries) {
    return new BoundedCache<>(maxEntries, Duration.ZERO, System::nanoTime);
  }

  /** A cache of at most {@code maxEntries} entries, each forgotten {@code maxAge} after written. */
  public static <K, V> BoundedCache<K, V> ofSizeAndAge(int maxEntries, Duration maxAge) {
    return new BoundedCache<>(maxEntries, maxAge, System::nanoTime);
  }

  /** As {@link #ofSizeAndAge}, reading time from {@code nanoTime} (for tests). */
  static <K, V> BoundedCache<K, V> withClock(int maxEntries, Duration maxAge,
      LongSupplier nanoTime) {
    return new BoundedCache<>(maxEntries, maxAge, nanoTime);
  }

  /** The value for {@code key}, if present and not too old; marks it recently used. */
  public synchronized Optional<V> get(K key) {
    Entry<V> entry = entries.get(key);
    if (entry == null) {
      return Optional.empty();
    }
    if (nanoTime.getAsLong() - entry.writtenNanos() > maxAgeNanos) {
      entries.remove(key);
      return Optional.empty();
    }
    return Optional.of(entry.value());
  }

  /** Sets {@code key} to {@code value}, forgetting the least recently used entry when full. */
  public synchronized void put(K key, V value) {
    entries.put(key, new Entry<>(value, nanoTime.getAsLong()));
  }

  /**
   * The value for {@code key}, or {@code create}'s for it, stored. {@code create} runs under the
   * cache's lock, so it must be cheap and must not touch this cache (a new empty set, say).
   */
  public synchronized V computeIfAbsent(K key, Function<? super K, ? extends V> create) {
    Optional<V> present = get(key);
    if (present.isPresent()) {
      return present.get();
    }
    V value = create.apply(key);
    put(key, value);
    return value;
  }

  /** Forgets {@code key}. */
  public synchronized void remove(K key) {
    entries.remove(key);
  }

  /** Forgets {@code key} only while it still maps to {@code value}. */
  public synchronized void remove(K key, V value) {
    Entry<V> entry = entries.get(key);
    if (entry != null && entry.value().equals(value)) {
      entries.remove(key);
    }
  }

  /** Forgets everything. */
  public synchronized void clear() {
    entries.clear();
  }

  /** Forgets everything: what the owner of a cache does when it closes. */
  @Override
  public void close() {
    clear();
  }

  /** Entries held, expired ones that were not read since included. */
  public synchronized int size() {
    return entries.size();
  }

  /** The size limit. */
  public int maxEntries() {
    return maxEntries;
  }
}

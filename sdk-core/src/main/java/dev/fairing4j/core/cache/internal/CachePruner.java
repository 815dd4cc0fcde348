package dev.fairing4j.core.cache.internal;

import dev.fairing4j.core.cache.CacheLimits;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes a cache's entries beyond its limits, least recently used first: leftovers of builds
 * first, then entries unused for longer than the age limit, then the oldest until the cache fits
 * its size limit. Entries used more recently than the grace are kept whatever the limits say:
 * a build context prepared minutes ago names them and will be built soon.
 */
public final class CachePruner {
  private static final Logger LOG = LoggerFactory.getLogger(CachePruner.class);

  /** What one pass removed and kept. */
  public record Outcome(int removedEntries, long removedBytes, int keptInUse) {}

  private CachePruner() {}

  /**
   * Prunes the cache in {@code directory} to {@code limit}, keeping entries used after
   * {@code now - grace}. The caller holds the cache root's exclusive {@link CacheLock}, so no
   * build is writing: work in progress found is a dead build's leftover.
   */
  public static Outcome prune(Path directory, CacheLimits.Limit limit, Instant now,
      Duration grace) {
    List<CacheEntries.Entry> entries = new ArrayList<>(CacheEntries.of(directory));
    entries.sort(Comparator.comparing(CacheEntries.Entry::lastUsed));
    Instant recent = now.minus(grace);
    Instant tooOld = now.minus(limit.maxAge());
    long total = entries.stream().mapToLong(CacheEntries.Entry::bytes).sum();
    int removed = 0;
    long removedBytes = 0;
    int kept = 0;
    for (CacheEntries.Entry entry : entries) {
      boolean leftover = entry.temporary();
      boolean inUse = !leftover && entry.lastUsed().isAfter(recent);
      boolean old = limit.maxAge().isZero() || entry.lastUsed().isBefore(tooOld);
      boolean over = total > limit.maxBytes();
      if (inUse) {
        if (old || over) {
          kept++;
        }
        continue;
      }
      if (leftover || old || over) {
        try {
          CacheEntries.remove(entry.path());
          total -= entry.bytes();
          removed++;
          removedBytes += entry.bytes();
        } catch (IOException e) {
          LOG.debug("cannot remove {} from the cache: {}", entry.path(), e.toString());
        }
      }
    }
    return new Outcome(removed, removedBytes, kept);
  }
}

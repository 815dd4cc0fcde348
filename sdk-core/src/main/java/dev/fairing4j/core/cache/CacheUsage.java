package dev.fairing4j.core.cache;

import java.nio.file.Path;
import java.util.Optional;

/**
 * One disk cache as {@link Caches#list()} found it.
 *
 * @param name the cache's name, e.g. {@code jib} or {@code git-trees}
 * @param path its directory
 * @param bytes what it holds on disk
 * @param entries how many entries (layers, trees, files) it holds
 * @param limit its size and age limit; empty for a directory fairing4j does not prune (the local
 *     jobs, which a local cluster's retention rule bounds, or a directory of other tools)
 */
public record CacheUsage(String name, Path path, long bytes, int entries,
    Optional<CacheLimits.Limit> limit) {}

package dev.fairing4j.core.cache;

import dev.fairing4j.core.cache.internal.CacheEntries;
import dev.fairing4j.core.cache.internal.CacheLock;
import dev.fairing4j.core.cache.internal.CachePruner;
import dev.fairing4j.core.internal.UserDirectories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * fairing4j's disk caches ({@code ~/.cache/fairing4j}, or {@code $XDG_CACHE_HOME/fairing4j}):
 * listed with their sizes, pruned to their limits, cleaned. Like {@code mvn dependency:purge} or
 * Jib's cache directory, but bounded by itself: builds prune the default caches to
 * {@link CacheLimits#defaults()} at most once an hour.
 *
 * <pre>{@code
 * Caches.user().list();    // CACHE  SIZE  ENTRIES  LIMIT  PATH, one row per cache
 * Caches.user().prune();   // least recently used entries beyond the limits
 * Caches.user().clean();   // everything no build is using now
 * }</pre>
 *
 * <p>Nothing a running build uses is removed: builds hold the caches (a lock file, across
 * processes) and a prune or clean waits for them, up to half a minute, and otherwise removes
 * nothing and says so. Immutable and shareable.
 */
public final class Caches {
  /** Jib's base layers (and its image metadata). */
  public static final String JIB = "jib";
  /** Jib's application layers. */
  public static final String APPLICATION_LAYERS = "jib-application-layers";
  /** Each build's snapshot of its context files, by content. */
  public static final String STAGING = "jib-staging";
  /** The images Jib pushed, kept for direct pushes. */
  public static final String IMAGE_TEMPLATES = "jib-image-templates";
  /** Git checkouts by commit. */
  public static final String GIT_TREES = "git-trees";
  /** Requirements installed on the host for prebuilt dependency layers. */
  public static final String SITE_PACKAGES = "site-packages";

  private static final List<String> PRUNED = List.of(JIB, APPLICATION_LAYERS, STAGING,
      IMAGE_TEMPLATES, GIT_TREES, SITE_PACKAGES);
  /** Entries used this recently are in use: a prepared context names them. */
  private static final Duration GRACE = Duration.ofHours(1);
  private static final Duration WAIT_FOR_BUILDS = Duration.ofSeconds(30);
  private static final String PRUNED_MARK = ".pruned";

  private final Path root;
  private final Optional<Path> localJobs;
  private final Duration waitForBuilds;

  private Caches(Path root, Optional<Path> localJobs, Duration waitForBuilds) {
    this.root = root.toAbsolutePath().normalize();
    this.localJobs = localJobs;
    this.waitForBuilds = waitForBuilds;
  }

  /** These caches, a prune or clean waiting at most {@code wait} for running builds (tests). */
  Caches waitingForBuilds(Duration wait) {
    return new Caches(root, localJobs, wait);
  }

  /** The user's caches: {@code $XDG_CACHE_HOME/fairing4j}, else {@code ~/.cache/fairing4j}. */
  public static Caches user() {
    return new Caches(UserDirectories.cache(),
        Optional.of(UserDirectories.state().resolve("jobs")), WAIT_FOR_BUILDS);
  }

  /** The caches under {@code root} (a build's base-layer cache set elsewhere, a test's). */
  public static Caches at(Path root) {
    return new Caches(root, Optional.empty(), WAIT_FOR_BUILDS);
  }

  /** The directory holding the caches. */
  public Path root() {
    return root;
  }

  /** The directory of the cache named {@code name}. */
  public Path directory(String name) {
    return root.resolve(name);
  }

  /** Every cache with its size and limit; changes nothing. */
  public CacheReport list() {
    return report(CacheLimits.defaults(), 0, 0, List.of());
  }

  /** Prunes every cache to {@link CacheLimits#defaults()}. */
  public CacheReport prune() {
    return prune(CacheLimits.defaults());
  }

  /**
   * Removes the least recently used entries of each cache beyond {@code limits}, and leftovers
   * of builds that died; entries used in the last hour stay whatever the limits say.
   */
  public CacheReport prune(CacheLimits limits) {
    return remove(limits, GRACE, waitForBuilds);
  }

  /**
   * Removes every entry no build is using now, whatever its age; a build context prepared
   * earlier and not built yet needs its preprocessor run again.
   */
  public CacheReport clean() {
    CacheLimits none = CacheLimits.defaults();
    for (String name : PRUNED) {
      none = none.withMaxBytes(name, 0).withMaxAge(name, Duration.ZERO);
    }
    return remove(none, Duration.ZERO, waitForBuilds);
  }

  /**
   * Prunes to the defaults when the last prune of these caches (by any process) was an hour ago
   * or more; for builds, which call it after they finish. Never fails: a cache that cannot be
   * pruned is only a cache.
   */
  public void pruneIfDue() {
    pruneIfDue(CacheLimits.defaults());
  }

  /**
   * Prunes to {@code limits} when due, as {@link #pruneIfDue()} does to the defaults; for builds
   * of a runtime with its own limits.
   */
  public void pruneIfDue(CacheLimits limits) {
    java.util.Objects.requireNonNull(limits, "limits");
    Path mark = root.resolve(PRUNED_MARK);
    try {
      if (Files.exists(mark) && Files.getLastModifiedTime(mark).toInstant()
          .isAfter(Instant.now().minus(GRACE))) {
        return;
      }
      Files.createDirectories(root);
      Files.write(mark, new byte[0]);
      Files.setLastModifiedTime(mark, FileTime.from(Instant.now()));
      // a build of this JVM or another may be running: then the next chance is an hour later
      removeOnly(limits, GRACE, Duration.ZERO);
    } catch (IOException | RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(Caches.class).debug("cache prune skipped: {}",
          e.toString());
    }
  }

  private CacheReport remove(CacheLimits limits, Duration grace, Duration wait) {
    Removal removal = removeOnly(limits, grace, wait);
    List<String> notes = new ArrayList<>();
    if (removal.busy()) {
      notes.add("a build is using the caches (in this or another process); nothing was"
          + " removed: run it again when the build is done");
    }
    if (removal.kept() > 0) {
      notes.add("kept " + removal.kept() + " entries used in the last hour beyond the limits"
          + " (a prepared build names them)");
    }
    return report(limits, removal.entries(), removal.bytes(), notes);
  }

  /** What one removal did; {@code busy}: a build held the caches, so it did nothing. */
  private record Removal(int entries, long bytes, int kept, boolean busy) {}

  /** The removal alone, without measuring every cache afterwards (builds' automatic prune). */
  private Removal removeOnly(CacheLimits limits, Duration grace, Duration wait) {
    if (!Files.isDirectory(root)) {
      return new Removal(0, 0, 0, false);
    }
    Optional<CacheLock> lock = CacheLock.exclusive(root, wait);
    if (lock.isEmpty()) {
      return new Removal(0, 0, 0, true);
    }
    int removed = 0;
    long bytes = 0;
    int kept = 0;
    try (CacheLock held = lock.get()) {
      Instant now = Instant.now();
      for (String name : PRUNED) {
        CachePruner.Outcome outcome = CachePruner.prune(directory(name),
            limits.of(name).orElseThrow(), now, grace);
        removed += outcome.removedEntries();
        bytes += outcome.removedBytes();
        kept += outcome.keptInUse();
      }
    }
    return new Removal(removed, bytes, kept, false);
  }

  private CacheReport report(CacheLimits limits, int removed, long bytes, List<String> notes) {
    List<CacheUsage> caches = new ArrayList<>();
    for (String name : PRUNED) {
      Path dir = directory(name);
      caches.add(new CacheUsage(name, dir, Files.exists(dir) ? CacheEntries.bytes(dir) : 0,
          CacheEntries.count(dir), limits.of(name)));
    }
    if (Files.isDirectory(root)) {
      try (Stream<Path> others = Files.list(root)) {
        others.filter(Files::isDirectory)
            .filter(p -> !PRUNED.contains(p.getFileName().toString()))
            .filter(p -> !p.getFileName().toString().startsWith("."))
            .sorted()
            .forEach(p -> caches.add(new CacheUsage(p.getFileName().toString(), p,
                CacheEntries.bytes(p), CacheEntries.count(p), Optional.empty())));
      } catch (IOException e) {
        // listed what could be read
      }
    }
    localJobs.filter(Files::isDirectory).ifPresent(jobs -> caches.add(new CacheUsage(
        "local-jobs", jobs, CacheEntries.bytes(jobs), jobCount(jobs), Optional.empty())));
    return new CacheReport(caches, removed, bytes, notes);
  }

  /** Local jobs are kept as {@code jobs/<namespace>/<name>}. */
  private static int jobCount(Path jobs) {
    try (Stream<Path> namespaces = Files.list(jobs)) {
      return namespaces.filter(Files::isDirectory).mapToInt(ns -> {
        try (Stream<Path> names = Files.list(ns)) {
          return (int) names.filter(Files::isDirectory).count();
        } catch (IOException e) {
          return 0;
        }
      }).sum();
    } catch (IOException e) {
      return 0;
    }
  }
}

package dev.fairing4j.core.cache.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The entries of one disk cache (a layer, a git tree, a staged file, an installed requirements
 * set), their sizes and when each was last used, and their removal.
 *
 * <p>Last use is the later of the entry's modification and access times. The SDK touches the
 * directories it reuses (git trees, requirements sets); staged files and Jib's layers keep their
 * modification time (Jib's layer cache keys on it), so their reads count through the access time,
 * which Linux updates at most daily by default ({@code relatime}): enough for ages in days, and
 * on a file system mounted {@code noatime} the order falls back to when the entry was written.
 */
public final class CacheEntries {
  /** Names of work in progress: a staging copy, a git tree or a pip install being written. */
  private static final List<String> TEMPORARY_MARKS = List.of(".staging-", ".incoming-", ".tmp-");
  private static final String TRASH = ".trash-";

  private CacheEntries() {}

  /**
   * One entry.
   *
   * @param path the file or directory
   * @param bytes its size, directories summed
   * @param lastUsed when it was last written or read
   * @param temporary work in progress of a build, or a build's leftover
   */
  public record Entry(Path path, long bytes, Instant lastUsed, boolean temporary) {}

  /**
   * The entries of the cache in {@code directory}: the children of its {@code layers} directory
   * where it has one (Jib's layout: the rest is small metadata), else its own children. Hidden
   * files other than work in progress are not entries.
   */
  public static List<Entry> of(Path directory) {
    List<Entry> entries = new ArrayList<>();
    for (Path child : paths(directory)) {
      try {
        BasicFileAttributes attributes = Files.readAttributes(child, BasicFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
        Instant used = later(attributes.lastModifiedTime().toInstant(),
            attributes.lastAccessTime().toInstant());
        entries.add(new Entry(child, bytes(child), used,
            isTemporary(child.getFileName().toString())));
      } catch (NoSuchFileException e) {
        // removed meanwhile
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return entries;
  }

  /** How many entries {@link #of} would find, without measuring them. */
  public static int count(Path directory) {
    return paths(directory).size();
  }

  private static List<Path> paths(Path directory) {
    Path holder = Files.isDirectory(directory.resolve("layers")) ? directory.resolve("layers")
        : directory;
    List<Path> paths = new ArrayList<>();
    if (!Files.isDirectory(holder)) {
      return paths;
    }
    try (Stream<Path> children = Files.list(holder)) {
      for (Path child : (Iterable<Path>) children::iterator) {
        String name = child.getFileName().toString();
        boolean hidden = name.startsWith(".") && !isTemporary(name);
        if (!hidden && !(name.equals("tmp") && holder == directory)) {
          paths.add(child);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return paths;
  }

  static boolean isTemporary(String name) {
    return name.startsWith(TRASH) || TEMPORARY_MARKS.stream().anyMatch(name::contains);
  }

  /** Bytes under {@code path} (a file's own size), links not followed; 0 when it is gone. */
  public static long bytes(Path path) {
    AtomicLong total = new AtomicLong();
    try {
      Files.walkFileTree(path, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
          total.addAndGet(attributes.size());
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      // counted what could be read
    }
    return total.get();
  }

  /**
   * Removes {@code entry}: renamed out of the way first, so a reader sees it whole or not at all,
   * then deleted; a rename or deletion left half done is a {@code .trash-} entry, removed by the
   * next prune.
   */
  public static void remove(Path entry) throws IOException {
    Path trash = entry.getFileName().toString().startsWith(TRASH) ? entry
        : entry.resolveSibling(TRASH + entry.getFileName() + "-" + System.nanoTime());
    if (!trash.equals(entry)) {
      try {
        Files.move(entry, trash, StandardCopyOption.ATOMIC_MOVE);
      } catch (NoSuchFileException e) {
        return;
      }
    }
    makeWritable(trash);
    Files.walkFileTree(trash, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
          throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        Files.deleteIfExists(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /** Read-only directories (pip's, our staged files') cannot lose their children otherwise. */
  private static void makeWritable(Path root) throws IOException {
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
        dir.toFile().setWritable(true, true);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /** Marks {@code entry} used now (a directory reused from the cache). */
  public static void touch(Path entry) {
    try {
      Files.setLastModifiedTime(entry, java.nio.file.attribute.FileTime.from(Instant.now()));
    } catch (IOException e) {
      // a read-only cache still works; it only prunes by creation time
    }
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}

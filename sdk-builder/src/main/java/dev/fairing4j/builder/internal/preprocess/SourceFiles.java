package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Checks the user's files on the host before anything is built: each named path exists, is a
 * regular file (or a directory where one is expected), can really be opened, and lies inside the
 * base directory. Every failure is an {@link InvalidInputException} naming the field and the fix.
 */
public final class SourceFiles {
  /**
   * Names skipped when a directory is copied: version-control data, byte code and editor caches,
   * which only make the image bigger and its digest unstable.
   */
  public static final Set<String> SKIPPED_NAMES =
      Set.of(".git", "__pycache__", ".ipynb_checkpoints", ".DS_Store", ".pytest_cache");

  private SourceFiles() {}

  /** {@code dir} as an absolute, normalized path; it must exist and be a directory. */
  public static Path requireDirectory(String field, Path dir) {
    Path absolute = dir.toAbsolutePath().normalize();
    if (!Files.exists(absolute)) {
      throw InvalidInputException.of(field, "'" + absolute + "' does not exist",
          "check the path; relative paths resolve against " + cwd());
    }
    if (!Files.isDirectory(absolute)) {
      throw InvalidInputException.of(field, "'" + absolute + "' is a file, not a directory",
          "name a directory" + (field.equals("directories") ? ", or add the file with .files(..)"
              : ""));
    }
    return absolute;
  }

  /**
   * {@code file} resolved against {@code baseDir} when relative; it must be a readable regular file
   * inside {@code baseDir}.
   */
  public static Path requireFileInside(String field, Path file, Path baseDir) {
    Path absolute = baseDir.resolve(file).normalize();
    requireReadableFile(field, absolute, baseDir);
    requireInside(field, absolute, baseDir);
    return absolute;
  }

  /** {@code file} must exist, be a regular file and open for reading. */
  public static Path requireReadableFile(String field, Path absolute, Path resolvedAgainst) {
    if (!Files.exists(absolute)) {
      throw InvalidInputException.of(field, "'" + absolute + "' does not exist",
          "check the path; relative paths resolve against " + resolvedAgainst);
    }
    if (Files.isDirectory(absolute)) {
      throw InvalidInputException.of(field, "'" + absolute + "' is a directory, not a file",
          "name a file; copy whole directories with .directories(..)");
    }
    if (!Files.isRegularFile(absolute)) {
      throw InvalidInputException.of(field, "'" + absolute + "' is not a regular file",
          "name a regular file (not a device, socket or pipe)");
    }
    requireReadable(field, absolute);
    return absolute;
  }

  /** {@code path} must lie inside {@code baseDir}. */
  public static void requireInside(String field, Path absolute, Path baseDir) {
    if (!absolute.startsWith(baseDir)) {
      throw InvalidInputException.of(field, "'" + absolute + "' lies outside the base directory '"
          + baseDir + "'", "move it below " + baseDir + ", choose a base directory that contains"
          + " it (.baseDir(..)), or place it explicitly with .output(path, \"/app/...\")");
    }
  }

  /**
   * The regular files below {@code dir}, sorted, skipping {@link #SKIPPED_NAMES} and {@code *.pyc};
   * each must be readable. Symbolic links to files are followed (their content is copied);
   * links to directories are not, so a link cycle cannot make the walk endless.
   */
  public static List<Path> walk(String field, Path dir) {
    List<Path> found = new ArrayList<>();
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path current, BasicFileAttributes attrs) {
          return !current.equals(dir) && skipped(current)
              ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (!skipped(file) && Files.isRegularFile(file)) {
            requireReadable(field, file);
            found.add(file);
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          throw InvalidInputException.of(field, "'" + file + "' cannot be read: " + reason(e),
              "fix its permissions (chmod -R a+rX " + dir + ") or leave it out", e);
        }
      });
    } catch (IOException e) {
      throw InvalidInputException.of(field, "'" + dir + "' cannot be read: " + reason(e),
          "fix its permissions (chmod -R a+rX " + dir + ") or leave it out", e);
    }
    found.sort(null);
    return found;
  }

  /**
   * True when the owner may execute {@code file}: the mode that goes into the image. Uses the
   * owner bit rather than {@code access(2)}, which answers for the current user (root sees any x
   * bit), so every user building the same files gets the same digest.
   */
  public static boolean isExecutable(Path file) {
    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
    if (view == null) {
      return false;
    }
    try {
      return view.readAttributes().permissions().contains(PosixFilePermission.OWNER_EXECUTE);
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean skipped(Path path) {
    String name = path.getFileName().toString();
    return SKIPPED_NAMES.contains(name) || name.endsWith(".pyc");
  }

  private static void requireReadable(String field, Path file) {
    // Opening is the only honest test: Files.isReadable asks access(2), which says yes to root
    // even where a capability-less root or a read-only mount cannot read.
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      channel.size();
    } catch (IOException e) {
      throw InvalidInputException.of(field, "'" + file + "' cannot be read: " + reason(e),
          "fix its permissions (chmod a+r " + file + ") or leave it out", e);
    }
  }

  private static String reason(IOException e) {
    String name = e.getClass().getSimpleName();
    return switch (name) {
      case "AccessDeniedException" -> "permission denied";
      case "NoSuchFileException" -> "it does not exist (a dangling link?)";
      default -> e.getMessage() != null ? e.getMessage() : name;
    };
  }

  private static Path cwd() {
    return Path.of("").toAbsolutePath();
  }
}

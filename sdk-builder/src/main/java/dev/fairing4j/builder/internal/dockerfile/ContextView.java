package dev.fairing4j.builder.internal.dockerfile;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.Layer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The build context as a Dockerfile sees it: the preprocessor's files, named relative to its
 * working directory ({@code /app/train.py} is {@code train.py}; a file outside it by its path
 * without the leading {@code /}), and then the files of the Dockerfile's own directory that the
 * preprocessor did not name; {@code .dockerignore} leaves paths out of both. The directory is
 * listed only when a source needs a listing (a directory or a wildcard).
 */
final class ContextView {
  /**
   * One file a source selects.
   *
   * @param name where it goes relative to the destination: its file name, or its path inside
   *     a directory source
   * @param file the file
   */
  record Selected(String name, ContextFile file) {}

  /**
   * What a source names.
   *
   * @param files the files, by name
   * @param directory whether the source is a directory or a wildcard, whose destination is a
   *     directory
   */
  record Selection(List<Selected> files, boolean directory) {}

  private final SortedMap<String, ContextFile> prepared;
  private final Path directory;
  private final DockerIgnore ignore;
  private SortedMap<String, ContextFile> listing;

  private ContextView(SortedMap<String, ContextFile> prepared, Path directory,
      DockerIgnore ignore) {
    this.prepared = prepared;
    this.directory = directory;
    this.ignore = ignore;
  }

  /** The view of {@code context} plus {@code directory}, with {@code ignore}'s rules. */
  static ContextView of(BuildContext context, Path directory, DockerIgnore ignore) {
    String prefix = context.workingDir().endsWith("/") ? context.workingDir()
        : context.workingDir() + "/";
    SortedMap<String, ContextFile> prepared = new TreeMap<>();
    context.files().forEach((path, file) -> {
      String name = path.startsWith(prefix) ? path.substring(prefix.length())
          : path.substring(1);
      if (!ignore.excludes(name)) {
        prepared.put(name, file);
      }
    });
    return new ContextView(prepared, directory, ignore);
  }

  /**
   * The files {@code source} (as written after the instruction) names.
   *
   * @throws DockerfileException when it reaches outside the context, names nothing there, or
   *     names only what {@code .dockerignore} leaves out
   */
  Selection select(String source, Instruction at) {
    String cleaned = PathPattern.clean(source);
    if (cleaned.equals("..") || cleaned.startsWith("../")) {
      throw new DockerfileException(at.line(), "the " + at.keyword() + " source '" + source
          + "' is outside the build context (" + directory + " and the preprocessor's files)",
          "move the file into " + directory + ", give it to the preprocessor with"
              + " .files(..), or put the Dockerfile in a directory above it");
    }
    if (PathPattern.hasWildcard(cleaned)) {
      PathPattern pattern = PathPattern.of(cleaned);
      List<Selected> files = new ArrayList<>();
      java.util.Set<String> directories = new java.util.TreeSet<>();
      for (Map.Entry<String, ContextFile> entry : listing().entrySet()) {
        String name = entry.getKey();
        if (pattern.matches(name)) {
          files.add(new Selected(name.substring(name.lastIndexOf('/') + 1), entry.getValue()));
          continue;
        }
        // A matching directory copies its contents, as Docker does for wildcards.
        String parent = name;
        while (parent.contains("/")) {
          parent = parent.substring(0, parent.lastIndexOf('/'));
          if (pattern.matches(parent)) {
            directories.add(parent);
            files.add(new Selected(name.substring(parent.length() + 1), entry.getValue()));
            break;
          }
        }
      }
      if (files.isEmpty()) {
        throw notFound(source, at, "matches no file");
      }
      return new Selection(files, files.size() > 1 || !directories.isEmpty());
    }
    if (cleaned.equals(".")) {
      List<Selected> files = new ArrayList<>();
      listing().forEach((name, file) -> files.add(new Selected(name, file)));
      return new Selection(files, true);
    }
    ContextFile single = prepared.get(cleaned);
    if (single == null && !ignore.excludes(cleaned)) {
      Path onDisk = directory.resolve(cleaned);
      if (Files.isRegularFile(onDisk)) {
        single = fromDisk(onDisk);
      }
    }
    if (single != null) {
      return new Selection(List.of(new Selected(cleaned.substring(cleaned.lastIndexOf('/') + 1),
          single)), false);
    }
    String prefix = cleaned + "/";
    List<Selected> files = new ArrayList<>();
    boolean onDisk = Files.isDirectory(directory.resolve(cleaned));
    Map<String, ContextFile> candidates = onDisk ? listing() : prepared;
    candidates.forEach((name, file) -> {
      if (name.startsWith(prefix)) {
        files.add(new Selected(name.substring(prefix.length()), file));
      }
    });
    if (!files.isEmpty() || onDisk) {
      return new Selection(files, true);
    }
    throw notFound(source, at, ignore.excludes(cleaned)
        ? "is left out by .dockerignore in " + directory : "is not in the build context");
  }

  private DockerfileException notFound(String source, Instruction at, String why) {
    List<String> names = new ArrayList<>(prepared.keySet());
    String shown = names.isEmpty() ? "no files" : String.join(", ", names.subList(0,
        Math.min(names.size(), 8))) + (names.size() > 8 ? ", ..." : "");
    return new DockerfileException(at.line(), "the " + at.keyword() + " source '" + source
        + "' " + why, "the context is the preprocessor's files (" + shown + ") and the"
        + " files of " + directory + "; check the name, or give the file to the preprocessor"
        + " with .files(..)");
  }

  /** Every file of the context by name, the preprocessor's where both have one. */
  SortedMap<String, ContextFile> listing() {
    if (listing == null) {
      SortedMap<String, ContextFile> all = new TreeMap<>();
      if (Files.isDirectory(directory)) {
        try (Stream<Path> walk = Files.walk(directory)) {
          walk.filter(Files::isRegularFile).forEach(path -> {
            String name = directory.relativize(path).toString().replace('\\', '/');
            if (!ignore.excludes(name)) {
              all.put(name, fromDisk(path));
            }
          });
        } catch (IOException e) {
          throw new UncheckedIOException("cannot list " + directory, e);
        }
      }
      all.putAll(prepared);
      listing = all;
    }
    return listing;
  }

  private static ContextFile fromDisk(Path path) {
    return ContextFile.of(path).inLayer(Layer.CODE).executable(Files.isExecutable(path));
  }
}

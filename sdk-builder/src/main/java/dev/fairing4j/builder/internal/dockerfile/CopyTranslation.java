package dev.fairing4j.builder.internal.dockerfile;

import dev.fairing4j.core.ContextFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@code COPY} and {@code ADD} steps of one Dockerfile, as Docker applies them: sources
 * from the {@link ContextView} (directories copy their contents, wildcards may match several),
 * destinations against the working directory, a destination without a trailing {@code /} a
 * directory when an earlier step made it one or it is a standard one ({@code /opt},
 * {@code /usr/local/bin}, ...), else a file name; {@code --chmod} 644 or 755 and {@code --link}
 * taken. The files land in the image's code layer.
 */
final class CopyTranslation {
  private static final Set<String> SYSTEM_DIRECTORIES = Set.of("/", "/bin", "/etc", "/home",
      "/lib", "/mnt", "/opt", "/root", "/sbin", "/srv", "/tmp", "/usr", "/usr/bin", "/usr/lib",
      "/usr/local", "/usr/local/bin", "/usr/local/lib", "/usr/share", "/var", "/var/lib",
      "/workspace");

  private final ContextView view;
  private final SortedMap<String, ContextFile> files = new TreeMap<>();
  private final Set<String> directories = new HashSet<>();

  CopyTranslation(ContextView view) {
    this.view = view;
  }

  /** The files copied so far, by container path. */
  SortedMap<String, ContextFile> files() {
    return Collections.unmodifiableSortedMap(files);
  }

  /** Notes that {@code path} is a directory in the image (a {@code WORKDIR}). */
  void directory(String path) {
    directories.add(path);
  }

  /**
   * Applies one {@code COPY} or {@code ADD} whose words (JSON form, or processed shell words)
   * are {@code all}, with relative destinations against {@code workingDir}.
   *
   * @return why Jib cannot take the step, when it cannot (nothing is copied then)
   * @throws DockerfileException for a step Docker would refuse too
   */
  Optional<String> apply(Instruction at, List<String> all, String workingDir) {
    List<String> parts = new ArrayList<>();
    Optional<Boolean> executable = Optional.empty();
    boolean flags = true;
    for (String part : all) {
      if (flags && part.startsWith("--")) {
        String flag = part.contains("=") ? part.substring(0, part.indexOf('=')) : part;
        String value = part.contains("=") ? part.substring(part.indexOf('=') + 1) : "";
        switch (flag) {
          case "--link" -> { }
          case "--chmod" -> {
            if (value.matches("0?755")) {
              executable = Optional.of(true);
            } else if (value.matches("0?644")) {
              executable = Optional.of(false);
            } else {
              return Optional.of("--chmod=" + value + ": the Jib path writes modes 644 and"
                  + " 755 only");
            }
          }
          case "--from" -> {
            return Optional.of("copies from another stage or image");
          }
          case "--chown" -> {
            return Optional.of("--chown: the Jib path writes files owned by root");
          }
          default -> {
            return Optional.of("the flag " + flag + " is not one the Jib path reads");
          }
        }
        continue;
      }
      flags = false;
      parts.add(part);
    }
    if (parts.size() < 2) {
      throw new DockerfileException(at.line(), at.keyword() + " needs a source and a"
          + " destination", "write " + at.keyword() + " train.py /app/");
    }
    String destination = parts.get(parts.size() - 1);
    List<String> sources = parts.subList(0, parts.size() - 1);
    if (at.keyword().equals("ADD")) {
      for (String source : sources) {
        if (source.contains("://") || source.startsWith("git@")) {
          return Optional.of("adds " + source + " from the network");
        }
      }
    }
    List<ContextView.Selection> selections = new ArrayList<>();
    for (String source : sources) {
      ContextView.Selection selection = view.select(source, at);
      if (at.keyword().equals("ADD")) {
        for (ContextView.Selected selected : selection.files()) {
          if (isArchive(selected.file())) {
            return Optional.of("ADD unpacks the archive " + source + " into the image");
          }
        }
      }
      selections.add(selection);
    }
    String target = absolute(destination, workingDir);
    boolean many = sources.size() > 1;
    for (int i = 0; i < sources.size(); i++) {
      many |= PathPattern.hasWildcard(sources.get(i)) && selections.get(i).files().size() > 1;
    }
    boolean slash = destination.endsWith("/") || destination.equals(".")
        || destination.endsWith("/.");
    if (many && !slash) {
      throw new DockerfileException(at.line(), at.keyword() + " of more than one file to '"
          + destination + "'", "end the destination with / to copy into a directory, e.g. "
          + destination + "/");
    }
    for (ContextView.Selection selection : selections) {
      boolean intoDirectory = slash || many || selection.directory()
          || directories.contains(target) || SYSTEM_DIRECTORIES.contains(target);
      for (ContextView.Selected selected : selection.files()) {
        String path = intoDirectory ? join(target, selected.name()) : target;
        ContextFile file = selected.file().inLayer(dev.fairing4j.core.Layer.CODE);
        if (executable.isPresent()) {
          file = file.executable(executable.get());
        }
        files.put(path, file);
        for (String parent = parentOf(path); parent != null; parent = parentOf(parent)) {
          directories.add(parent);
        }
      }
      if (intoDirectory) {
        directories.add(target);
      }
    }
    return Optional.empty();
  }

  private static boolean isArchive(ContextFile file) {
    byte[] head = new byte[262];
    int read;
    try (InputStream in = file.open()) {
      read = in.readNBytes(head, 0, head.length);
    } catch (IOException e) {
      return false;
    }
    boolean gzip = read >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
    boolean bzip2 = read >= 3 && head[0] == 'B' && head[1] == 'Z' && head[2] == 'h';
    boolean xz = read >= 6 && (head[0] & 0xff) == 0xfd && head[1] == '7' && head[2] == 'z';
    boolean tar = read >= 262 && new String(head, 257, 5, StandardCharsets.US_ASCII)
        .equals("ustar");
    return gzip || bzip2 || xz || tar;
  }

  /** {@code path} made absolute against {@code workingDir}, cleaned. */
  static String absolute(String path, String workingDir) {
    String joined = path.startsWith("/") ? path : join(workingDir, path);
    String cleaned = PathPattern.clean(joined);
    return cleaned.equals(".") ? "/" : "/" + cleaned.replaceFirst("^(\\.\\./)+", "")
        .replaceFirst("^\\.\\.$", "");
  }

  private static String join(String directory, String name) {
    String cleaned = PathPattern.clean(name);
    if (cleaned.equals(".")) {
      return directory;
    }
    return (directory.endsWith("/") ? directory : directory + "/") + cleaned;
  }

  private static String parentOf(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? null : path.substring(0, slash);
  }
}

package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import java.nio.file.Path;

/** Checks and joins absolute POSIX paths inside the container, independent of the host OS. */
public final class ContainerPaths {
  private ContainerPaths() {}

  /** An absolute container directory; a trailing slash is dropped ({@code /} stays). */
  public static String checkDirectory(String field, String path) {
    String checked = checkAbsolute(field, path, "/app");
    return checked.length() > 1 && checked.endsWith("/")
        ? checked.substring(0, checked.length() - 1) : checked;
  }

  /** An absolute container file path. */
  public static String checkFile(String field, String path) {
    String checked = checkAbsolute(field, path, "/app/config.yaml");
    if (checked.endsWith("/")) {
      throw InvalidInputException.of(field, "'" + path + "' ends with '/', it must name a file",
          "give the full file path, e.g. /app/config.yaml");
    }
    return checked;
  }

  /** {@code prefix/relative}, where {@code relative} is a host path below the base directory. */
  public static String join(String prefix, Path relative) {
    StringBuilder joined = new StringBuilder(prefix.equals("/") ? "" : prefix);
    for (Path part : relative) {
      joined.append('/').append(part.toString());
    }
    return joined.toString();
  }

  private static String checkAbsolute(String field, String path, String example) {
    Validators.requireText(field, path);
    boolean dotSegment = false;
    for (String part : path.split("/", -1)) {
      dotSegment |= part.equals("..") || part.equals(".");
    }
    if (!path.startsWith("/") || path.contains("\\") || path.contains("//") || dotSegment) {
      throw InvalidInputException.of(field, "'" + path + "' is not an absolute POSIX path",
          "use a path like " + example + ", without '.', '..', '//' or backslashes");
    }
    return path;
  }
}

package dev.fairing4j.builder.internal.dockerfile;

import java.util.regex.Pattern;

/**
 * A path pattern as Docker reads them in {@code .dockerignore} and in {@code COPY} sources
 * (Go's {@code filepath.Match} plus {@code **}): {@code *} and {@code ?} within one path
 * segment, {@code [a-z]} classes, {@code **} across segments, {@code \} before a character to
 * take it literally. Paths are relative to the context root, with {@code /} separators.
 */
final class PathPattern {
  private final String text;
  private final Pattern exact;
  private final Pattern orParent;

  private PathPattern(String text, Pattern exact, Pattern orParent) {
    this.text = text;
    this.exact = exact;
    this.orParent = orParent;
  }

  /** The pattern {@code text}, cleaned as Docker cleans it (no leading {@code /} or {@code ./}). */
  static PathPattern of(String text) {
    String cleaned = clean(text);
    String regex = toRegex(cleaned);
    return new PathPattern(cleaned, Pattern.compile(regex),
        Pattern.compile(regex + "(/.*)?"));
  }

  /** Whether {@code text} uses any wildcard. */
  static boolean hasWildcard(String text) {
    return text.contains("*") || text.contains("?") || text.contains("[");
  }

  /** Whether the pattern matches {@code path} itself. */
  boolean matches(String path) {
    return exact.matcher(path).matches();
  }

  /** Whether the pattern matches {@code path} or a directory above it (.dockerignore's rule). */
  boolean matchesOrParent(String path) {
    return orParent.matcher(path).matches();
  }

  /** The cleaned pattern. */
  String text() {
    return text;
  }

  /**
   * {@code path} with {@code /} separators, without a leading {@code /} or {@code ./}, without
   * {@code .} segments and with {@code ..} resolved; {@code .} for the root. A {@code ..} that
   * climbs above the root is kept at the front, for the caller to refuse.
   */
  static String clean(String path) {
    java.util.Deque<String> parts = new java.util.ArrayDeque<>();
    for (String part : path.split("/")) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..") && !parts.isEmpty() && !parts.peekLast().equals("..")) {
        parts.removeLast();
      } else {
        parts.addLast(part);
      }
    }
    return parts.isEmpty() ? "." : String.join("/", parts);
  }

  private static String toRegex(String pattern) {
    StringBuilder regex = new StringBuilder();
    int i = 0;
    while (i < pattern.length()) {
      char c = pattern.charAt(i);
      if (c == '*') {
        if (i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
          i += 2;
          if (i < pattern.length() && pattern.charAt(i) == '/') {
            regex.append("(.*/)?");
            i++;
          } else {
            regex.append(".*");
          }
          continue;
        }
        regex.append("[^/]*");
      } else if (c == '?') {
        regex.append("[^/]");
      } else if (c == '[') {
        int close = pattern.indexOf(']', i + 2);
        if (close < 0) {
          regex.append("\\[");
        } else {
          String body = pattern.substring(i + 1, close);
          if (body.startsWith("^") || body.startsWith("!")) {
            body = "^" + body.substring(1);
          }
          regex.append('[').append(body.replace("\\", "\\\\")).append(']');
          i = close;
        }
      } else if (c == '\\' && i + 1 < pattern.length()) {
        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
      i++;
    }
    return regex.toString();
  }
}

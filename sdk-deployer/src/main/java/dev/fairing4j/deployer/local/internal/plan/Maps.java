package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.deployer.job.internal.JsonTree;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the JSON-like maps of a rendered manifest: {@link JsonTree}'s paths, plus what a manifest
 * written by hand needs (a number spelled as an int, a long or a string; a string rendered from
 * whatever scalar an env value holds, as {@code String.valueOf} prints it).
 */
public final class Maps {
  private Maps() {}

  /** The value at {@code path}, descending through nested maps. */
  public static Optional<Object> at(Map<String, ?> root, String... path) {
    return JsonTree.at(root, path);
  }

  /** The nested map at {@code path}, or an empty map. */
  public static Map<String, Object> map(Map<String, ?> root, String... path) {
    return JsonTree.map(root, path);
  }

  /** The string at {@code path}; numbers and booleans are rendered as text. */
  public static Optional<String> string(Map<String, ?> root, String... path) {
    return at(root, path).filter(v -> v instanceof String || v instanceof Number
        || v instanceof Boolean).map(String::valueOf);
  }

  /** The integer at {@code path}, accepting numeric strings. */
  static Optional<Long> number(Map<String, ?> root, String... path) {
    return at(root, path).flatMap(Maps::toLong);
  }

  /** The list of maps at {@code path}; entries that are not maps are skipped. */
  static List<Map<String, Object>> maps(Map<String, ?> root, String... path) {
    return JsonTree.maps(root, path);
  }

  /** The list of strings at {@code path}; numbers are rendered as text. */
  static List<String> strings(Map<String, ?> root, String... path) {
    List<String> result = new ArrayList<>();
    at(root, path).filter(List.class::isInstance).ifPresent(list -> {
      for (Object item : (List<?>) list) {
        if (item != null) {
          result.add(String.valueOf(item));
        }
      }
    });
    return result;
  }

  /** A number given as a Number or a decimal string. */
  static Optional<Long> toLong(Object value) {
    if (value instanceof Number n) {
      return Optional.of(n.longValue());
    }
    if (value instanceof String s) {
      try {
        return Optional.of(Long.parseLong(s.trim()));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}

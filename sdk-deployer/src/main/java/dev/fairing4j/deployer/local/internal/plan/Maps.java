package dev.fairing4j.deployer.local.internal.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the JSON-like maps of a rendered manifest. A manifest written by hand (or by a future
 * renderer) may spell a number as an int, a long or a string, so the readers accept all three.
 */
public final class Maps {
  private Maps() {}

  /** The value at {@code path}, descending through nested maps. */
  public static Optional<Object> at(Map<String, ?> root, String... path) {
    Object current = root;
    for (String key : path) {
      if (!(current instanceof Map<?, ?> map)) {
        return Optional.empty();
      }
      current = map.get(key);
    }
    return Optional.ofNullable(current);
  }

  /** The nested map at {@code path}, or an empty map. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> map(Map<String, ?> root, String... path) {
    return at(root, path).filter(Map.class::isInstance).map(v -> (Map<String, Object>) v)
        .orElse(Map.of());
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
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> maps(Map<String, ?> root, String... path) {
    List<Map<String, Object>> result = new ArrayList<>();
    at(root, path).filter(List.class::isInstance).ifPresent(list -> {
      for (Object item : (List<Object>) list) {
        if (item instanceof Map<?, ?>) {
          result.add((Map<String, Object>) item);
        }
      }
    });
    return result;
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

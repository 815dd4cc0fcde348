package dev.fairing4j.deployer.job.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kubernetes objects as plain JSON-like trees ({@code Map}, {@code List}, {@code String},
 * {@code Long}, {@code Double}, {@code Boolean}): parsing, printing and null-safe reads by path.
 *
 * <p>Why not client-java's typed models: they reject any field they do not know (a newer server, a
 * CRD) and quote the whole object, Secrets included, in the error. Trees carry every field through.
 *
 * <p>Why not Jackson's {@code JsonNode}, which reads paths as well: measured
 * ({@code scripts/bench.sh json}, JsonTreeBenchmark), parsing a 20-item PyTorchJob list as the API
 * server returns it and reading the fields the status mapping reads took the same time either
 * way (274 and 276 microseconds) and allocated 9% less as maps (252 KB against 277 KB). The
 * deployers and mutators build and change manifests as maps ({@link Json}), so a switch would
 * add a conversion per manifest (about 8 microseconds and 10 KB each) and touch some 340 call
 * sites, for nothing measured in return.
 */
public final class JsonTree {
  private static final TypeReference<LinkedHashMap<String, Object>> TREE = new TypeReference<>() {};

  private JsonTree() {}

  /** Parses a JSON object; an empty or non-object body gives an empty map. */
  public static Map<String, Object> parseObject(String json) {
    if (json == null || json.isBlank()) {
      return Map.of();
    }
    try {
      Map<String, Object> map = Mappers.JSON.readValue(json, TREE);
      return map == null ? Map.of() : map;
    } catch (JsonProcessingException e) {
      // A body that is not an object (an HTML error page from a proxy, plain text) has no fields.
      return Map.of();
    }
  }

  /**
   * {@code tree} as Jackson's tree model, for the readers that take one (a kind's
   * {@link dev.fairing4j.deployer.job.internal.kinds.TrainingKind} reads its spec so).
   */
  public static com.fasterxml.jackson.databind.JsonNode node(Object tree) {
    return Mappers.JSON.valueToTree(tree);
  }

  /** Prints a tree as compact JSON. */
  public static String toJson(Object tree) {
    try {
      return Mappers.JSON.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A deep, mutable copy of {@code tree}. */
  public static Map<String, Object> mutableCopy(Map<String, Object> tree) {
    @SuppressWarnings("unchecked")
    Map<String, Object> copy = (Map<String, Object>) copyValue(tree);
    return copy;
  }

  /** The value at {@code path} (map keys), if every step exists. */
  public static Optional<Object> at(Object root, String... path) {
    Object current = root;
    for (String key : path) {
      if (!(current instanceof Map<?, ?> map)) {
        return Optional.empty();
      }
      current = map.get(key);
    }
    return Optional.ofNullable(current);
  }

  /** The string at {@code path}; numbers and booleans are printed. */
  public static Optional<String> string(Object root, String... path) {
    return at(root, path).filter(v -> v instanceof String || v instanceof Number
        || v instanceof Boolean).map(v -> v instanceof Number n ? printNumber(n) : v.toString());
  }

  /** The non-blank string at {@code path}. */
  public static Optional<String> text(Object root, String... path) {
    return string(root, path).filter(s -> !s.isBlank());
  }

  /** The integer at {@code path} (JSON numbers, or numeric strings). */
  public static Optional<Integer> integer(Object root, String... path) {
    Optional<Object> value = at(root, path);
    if (value.isPresent() && value.get() instanceof Number n) {
      return Optional.of(n.intValue());
    }
    return value.filter(String.class::isInstance).map(String.class::cast)
        .flatMap(JsonTree::parseInt);
  }

  /** The RFC 3339 time at {@code path}. */
  public static Optional<Instant> instant(Object root, String... path) {
    return text(root, path).flatMap(s -> {
      try {
        return Optional.of(Instant.parse(s));
      } catch (DateTimeParseException e) {
        return Optional.empty();
      }
    });
  }

  /** The object at {@code path}, or an empty map. */
  public static Map<String, Object> map(Object root, String... path) {
    Optional<Object> value = at(root, path);
    if (value.isPresent() && value.get() instanceof Map<?, ?> m) {
      @SuppressWarnings("unchecked")
      Map<String, Object> typed = (Map<String, Object>) m;
      return typed;
    }
    return Map.of();
  }

  /** The objects of the list at {@code path}, skipping non-objects; empty when absent. */
  public static List<Map<String, Object>> maps(Object root, String... path) {
    Optional<Object> value = at(root, path);
    List<Map<String, Object>> result = new ArrayList<>();
    if (value.isPresent() && value.get() instanceof List<?> list) {
      for (Object item : list) {
        if (item instanceof Map<?, ?> m) {
          @SuppressWarnings("unchecked")
          Map<String, Object> typed = (Map<String, Object>) m;
          result.add(typed);
        }
      }
    }
    return result;
  }

  private static Optional<Integer> parseInt(String s) {
    try {
      return Optional.of(Integer.parseInt(s.trim()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static String printNumber(Number n) {
    if (n instanceof Double || n instanceof Float) {
      double d = n.doubleValue();
      if (d == Math.rint(d) && !Double.isInfinite(d)) {
        return Long.toString((long) d);
      }
    }
    return n.toString();
  }

  private static Object copyValue(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put(String.valueOf(k), copyValue(v)));
      return copy;
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(v -> copy.add(copyValue(v)));
      return copy;
    }
    return value;
  }
}

package dev.fairing4j.deployer.job.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Helpers for the JSON-shaped trees (maps, lists, strings, numbers, booleans) that manifests are
 * built from. Everything here works on mutable {@link LinkedHashMap}s and {@link ArrayList}s, so
 * key order is insertion order and the YAML comes out stable. Why maps rather than Jackson's
 * {@code ObjectNode}: measured in {@link JsonTree}'s comment ({@code scripts/bench.sh json}).
 */
public final class Json {
  // Keys whose empty-map value means something: an emptyDir volume with defaults, a selector
  // that matches everything. Everywhere else an empty map or list is noise and is pruned.
  private static final Set<String> MEANINGFUL_EMPTY =
      Set.of("emptyDir", "labelSelector", "namespaceSelector", "podSelector");

  private Json() {}

  /** A new insertion-ordered map. */
  public static Map<String, Object> map() {
    return new LinkedHashMap<>();
  }

  /** The map under {@code key}, created when absent. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> child(Map<String, Object> parent, String key) {
    Object value = parent.get(key);
    if (value == null) {
      Map<String, Object> created = new LinkedHashMap<>();
      parent.put(key, created);
      return created;
    }
    if (!(value instanceof Map)) {
      throw new IllegalStateException("'" + key + "' is not an object but " + value);
    }
    return (Map<String, Object>) value;
  }

  /** The list under {@code key}, created when absent. */
  @SuppressWarnings("unchecked")
  public static List<Object> list(Map<String, Object> parent, String key) {
    Object value = parent.get(key);
    if (value == null) {
      List<Object> created = new ArrayList<>();
      parent.put(key, created);
      return created;
    }
    if (!(value instanceof List)) {
      throw new IllegalStateException("'" + key + "' is not a list but " + value);
    }
    return (List<Object>) value;
  }

  /** The maps in {@code list}, skipping anything else. */
  @SuppressWarnings("unchecked")
  public static List<Map<String, Object>> maps(Object list) {
    List<Map<String, Object>> result = new ArrayList<>();
    if (list instanceof List<?> items) {
      for (Object item : items) {
        if (item instanceof Map) {
          result.add((Map<String, Object>) item);
        }
      }
    }
    return result;
  }

  /**
   * A mutable deep copy of {@code value}: maps become insertion-ordered maps with string keys,
   * other collections become lists, enums their names; strings, numbers and booleans stay.
   *
   * @throws IllegalArgumentException for a value that has no JSON form
   */
  public static Object copy(Object value) {
    if (value == null || value instanceof String || value instanceof Number
        || value instanceof Boolean) {
      return value;
    }
    if (value instanceof Map<?, ?> source) {
      Map<String, Object> copy = new LinkedHashMap<>();
      source.forEach((k, v) -> copy.put(String.valueOf(k), copy(v)));
      return copy;
    }
    if (value instanceof Iterable<?> source) {
      List<Object> copy = new ArrayList<>();
      source.forEach(item -> copy.add(copy(item)));
      return copy;
    }
    if (value instanceof Enum<?> constant) {
      return constant.name();
    }
    throw new IllegalArgumentException("a manifest holds maps, lists, strings, numbers and"
        + " booleans, not " + value.getClass().getName());
  }

  /** A mutable deep copy of a map. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> copyMap(Map<String, ?> value) {
    return (Map<String, Object>) copy(value);
  }

  /**
   * Removes nulls, empty lists and empty maps (except where an empty map means something, such
   * as {@code emptyDir: {}}), bottom up, in place. Returns {@code value}.
   */
  @SuppressWarnings("unchecked")
  public static <T> T prune(T value) {
    if (value instanceof Map<?, ?> map) {
      var entries = ((Map<String, Object>) map).entrySet().iterator();
      while (entries.hasNext()) {
        var entry = entries.next();
        Object child = prune(entry.getValue());
        if (child == null || (isEmpty(child) && !MEANINGFUL_EMPTY.contains(entry.getKey()))) {
          entries.remove();
        }
      }
    } else if (value instanceof List<?> list) {
      var items = ((List<Object>) list).iterator();
      while (items.hasNext()) {
        Object child = prune(items.next());
        if (child == null) {
          items.remove();
        }
      }
    }
    return value;
  }

  /**
   * Reorders {@code map}'s keys in place: those in {@code order} first, in that order, then the
   * rest as they were.
   */
  public static void order(Map<String, Object> map, List<String> order) {
    Map<String, Object> copy = new LinkedHashMap<>(map);
    map.clear();
    for (String key : order) {
      if (copy.containsKey(key)) {
        map.put(key, copy.remove(key));
      }
    }
    map.putAll(copy);
  }

  private static boolean isEmpty(Object value) {
    return (value instanceof Map<?, ?> map && map.isEmpty())
        || (value instanceof List<?> list && list.isEmpty());
  }
}

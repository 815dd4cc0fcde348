package dev.fairing4j.core.cache;

import dev.fairing4j.core.InvalidInputException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How large and how old each of fairing4j's disk caches may grow before {@link Caches#prune}
 * removes its least recently used entries. Immutable; {@code with..} returns a changed copy.
 *
 * <p>The defaults suit a laptop: base layers 4 GiB and 60 days, the other caches 1 GiB and 30
 * days (image templates 64 MiB, prebuilt requirements 4 GiB). A JVM may change them with system
 * properties, read by {@link #defaults()}: {@code -Dfairing4j.cache.<name>.maxBytes=2g} (a size
 * with k, m or g) and {@code -Dfairing4j.cache.<name>.maxAge=P14D} (an ISO-8601 duration) or
 * {@code 14d}.
 */
public final class CacheLimits {
  /** The size and age limit of one cache. */
  public record Limit(long maxBytes, Duration maxAge) {}

  private static final long MIB = 1024L * 1024;
  private static final long GIB = 1024 * MIB;
  private static final Map<String, Limit> DEFAULTS = defaultsByName();

  private final Map<String, Limit> limits;

  private CacheLimits(Map<String, Limit> limits) {
    this.limits = Map.copyOf(limits);
  }

  private static Map<String, Limit> defaultsByName() {
    Map<String, Limit> map = new LinkedHashMap<>();
    map.put(Caches.JIB, new Limit(4 * GIB, Duration.ofDays(60)));
    map.put(Caches.APPLICATION_LAYERS, new Limit(GIB, Duration.ofDays(30)));
    map.put(Caches.STAGING, new Limit(GIB, Duration.ofDays(30)));
    map.put(Caches.IMAGE_TEMPLATES, new Limit(64 * MIB, Duration.ofDays(30)));
    map.put(Caches.GIT_TREES, new Limit(GIB, Duration.ofDays(30)));
    map.put(Caches.SITE_PACKAGES, new Limit(4 * GIB, Duration.ofDays(60)));
    return map;
  }

  /**
   * The default limits, changed by this JVM's {@code fairing4j.cache.<name>.maxBytes} and
   * {@code .maxAge} system properties where set.
   *
   * @throws InvalidInputException when such a property cannot be read (it names the property)
   */
  public static CacheLimits defaults() {
    CacheLimits limits = new CacheLimits(DEFAULTS);
    for (String name : DEFAULTS.keySet()) {
      String bytes = System.getProperty("fairing4j.cache." + name + ".maxBytes");
      if (bytes != null) {
        limits = limits.withMaxBytes(name, parseBytes("fairing4j.cache." + name + ".maxBytes",
            bytes));
      }
      String age = System.getProperty("fairing4j.cache." + name + ".maxAge");
      if (age != null) {
        limits = limits.withMaxAge(name, parseAge("fairing4j.cache." + name + ".maxAge", age));
      }
    }
    return limits;
  }

  /** These limits with {@code cache} allowed {@code maxBytes} (0: keep nothing unused). */
  public CacheLimits withMaxBytes(String cache, long maxBytes) {
    Limit limit = require(cache);
    if (maxBytes < 0) {
      throw InvalidInputException.of("maxBytes", maxBytes + " is below zero",
          "give 0 or more bytes (0 keeps nothing that is not in use)");
    }
    return with(cache, new Limit(maxBytes, limit.maxAge()));
  }

  /** These limits with entries of {@code cache} unused for longer than {@code maxAge} removed. */
  public CacheLimits withMaxAge(String cache, Duration maxAge) {
    Limit limit = require(cache);
    if (maxAge == null || maxAge.isNegative()) {
      throw InvalidInputException.of("maxAge", maxAge + " is not an age",
          "give zero or a positive duration such as Duration.ofDays(14)");
    }
    return with(cache, new Limit(limit.maxBytes(), maxAge));
  }

  /** The limit of {@code cache}, if it is one of fairing4j's caches. */
  public Optional<Limit> of(String cache) {
    return Optional.ofNullable(limits.get(cache));
  }

  private CacheLimits with(String cache, Limit limit) {
    Map<String, Limit> changed = new LinkedHashMap<>(limits);
    changed.put(cache, limit);
    return new CacheLimits(changed);
  }

  private Limit require(String cache) {
    Limit limit = cache == null ? null : limits.get(cache);
    if (limit == null) {
      throw InvalidInputException.of("cache", "'" + cache + "' is not one of fairing4j's"
          + " caches", "name one of " + String.join(", ", DEFAULTS.keySet()));
    }
    return limit;
  }

  static long parseBytes(String field, String text) {
    String t = text.trim().toLowerCase(java.util.Locale.ROOT);
    long unit = 1;
    if (t.endsWith("k") || t.endsWith("m") || t.endsWith("g")) {
      unit = t.endsWith("k") ? 1024 : t.endsWith("m") ? MIB : GIB;
      t = t.substring(0, t.length() - 1);
    }
    try {
      long value = Long.parseLong(t.trim());
      if (value >= 0) {
        return Math.multiplyExact(value, unit);
      }
    } catch (NumberFormatException | ArithmeticException e) {
      // reported below
    }
    throw InvalidInputException.of(field, "'" + text + "' is not a size", "write bytes, or a"
        + " number with k, m or g, e.g. 2g");
  }

  static Duration parseAge(String field, String text) {
    String t = text.trim();
    try {
      if (t.matches("\\d+d")) {
        return Duration.ofDays(Long.parseLong(t.substring(0, t.length() - 1)));
      }
      Duration age = Duration.parse(t);
      if (!age.isNegative()) {
        return age;
      }
    } catch (DateTimeParseException | NumberFormatException e) {
      // reported below
    }
    throw InvalidInputException.of(field, "'" + text + "' is not an age", "write days such as"
        + " 14d, or an ISO-8601 duration such as P14D or PT12H");
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("CacheLimits[");
    DEFAULTS.keySet().forEach(name -> text.append(name).append('=')
        .append(limits.get(name).maxBytes() / MIB).append("MiB/")
        .append(limits.get(name).maxAge().toDays()).append("d "));
    return text.toString().trim() + "]";
  }
}

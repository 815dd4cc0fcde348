package dev.fairing4j.examples.archfixture;

import dev.fairing4j.core.internal.JvmWide;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Static fields for the architecture test's mutable-state rule: three it must flag, four not. */
public final class Statics {
  static final List<String> NAMES = List.of("a", "b");
  static final Map<String, String> COPY = Map.copyOf(new HashMap<>(Map.of("k", "v")));
  static final Map<String, String> CACHE = new ConcurrentHashMap<>();
  @JvmWide(why = "fixture", bound = "fixture")
  static final Map<String, String> MARKED = new ConcurrentHashMap<>();
  static final ExecutorService POOL = Executors.newCachedThreadPool();
  static final int LIMIT = 3;
  static String lazy;

  private Statics() {}
}

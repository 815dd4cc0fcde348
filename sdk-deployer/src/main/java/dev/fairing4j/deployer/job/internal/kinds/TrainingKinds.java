package dev.fairing4j.deployer.job.internal.kinds;

import dev.fairing4j.core.internal.JvmWide;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The {@link TrainingKind}s the SDK's rooms provide, found once through {@link ServiceLoader}
 * ({@code provides} in the module descriptor, {@code META-INF/services} on the class path).
 */
public final class TrainingKinds {
  private TrainingKinds() {}

  /** The kind called {@code kind}, e.g. {@code XGBoostJob}; empty for one no room provides. */
  public static Optional<TrainingKind> named(String kind) {
    return Optional.ofNullable(Loaded.BY_NAME.get(kind));
  }

  /** Every provided kind, in the order the providers are declared. */
  public static Collection<TrainingKind> all() {
    return Loaded.BY_NAME.values();
  }

  /** Loads on first use: the class loader that loaded the SDK sees its providers. */
  private static final class Loaded {
    @JvmWide(why = "the kinds the SDK's jar provides, read once: they are stateless",
        bound = "one entry per provided kind (3)")
    private static final Map<String, TrainingKind> BY_NAME = load();

    private static Map<String, TrainingKind> load() {
      Map<String, TrainingKind> kinds = new LinkedHashMap<>();
      for (TrainingKind kind : ServiceLoader.load(TrainingKind.class,
          TrainingKind.class.getClassLoader())) {
        kinds.putIfAbsent(kind.kind(), kind);
      }
      return java.util.Collections.unmodifiableMap(kinds);
    }
  }
}

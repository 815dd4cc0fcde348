package dev.fairing4j.deployer.mutate;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.PodTemplate;
import dev.fairing4j.deployer.job.internal.Json;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Lets pods run on nodes with a matching taint, e.g. GPU nodes tainted
 * {@code nvidia.com/gpu:NoSchedule}. Adding an equal toleration again changes nothing.
 *
 * @param key the taint key
 * @param operator {@code Equal} (key and value match) or {@code Exists} (key matches)
 * @param value the taint value, for {@code Equal}
 * @param effect {@code NoSchedule}, {@code PreferNoSchedule} or {@code NoExecute}; empty for all
 */
public record Toleration(String key, String operator, Optional<String> value,
    Optional<String> effect) implements PodMutator {

  private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule",
      "NoExecute");

  /** Checks the operator and effect. */
  public Toleration {
    Validators.requireText("toleration key", key);
    if (!"Equal".equals(operator) && !"Exists".equals(operator)) {
      throw InvalidInputException.of("toleration operator", "'" + operator + "' is unknown",
          "use Equal or Exists");
    }
    Objects.requireNonNull(value, "value");
    if ("Exists".equals(operator) && value.isPresent()) {
      throw InvalidInputException.of("toleration value", "is set with operator Exists",
          "drop the value, or use Equal");
    }
    Objects.requireNonNull(effect, "effect").ifPresent(e -> {
      if (!EFFECTS.contains(e)) {
        throw InvalidInputException.of("toleration effect", "'" + e + "' is unknown",
            "use NoSchedule, PreferNoSchedule or NoExecute");
      }
    });
  }

  @Override
  public void apply(PodTemplate template) {
    Map<String, Object> toleration = Json.map();
    toleration.put("key", key);
    toleration.put("operator", operator);
    value.ifPresent(v -> toleration.put("value", v));
    effect.ifPresent(e -> toleration.put("effect", e));
    template.addToleration(toleration);
  }
}

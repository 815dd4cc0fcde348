package dev.fairing4j.deployer.job;

import dev.fairing4j.core.InvalidInputException;
import java.util.Objects;

/**
 * The literal environment variable of {@code env(name, value, types...)}: a mutator of the
 * training container of the replicas of some types. Here rather than as a
 * {@code mutate.Env}, so that this room, below the mutators, does not depend on them.
 *
 * @param name the variable name
 * @param value its value
 */
record TargetedEnv(String name, String value) implements PodMutator {
  /** Refuses what can never be a name: blank, or with '=' (finer checks come at validation). */
  TargetedEnv {
    if (name == null || name.isBlank() || name.contains("=")) {
      throw InvalidInputException.of("env name", "'" + name + "' is not a variable name",
          "use a name without '=', e.g. WANDB_API_KEY");
    }
    Objects.requireNonNull(value, "env value");
  }

  @Override
  public void apply(PodTemplate template) {
    template.putEnv(name, value);
  }

  @Override
  public String toString() {
    return "env(" + name + "=" + value + ")";
  }
}

package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import java.util.Map;
import java.util.Set;

/**
 * How a search proposes trials. {@link #random(long)} and {@link #grid()} run anywhere (the SDK
 * proposes them itself, the same seed giving the same trials); {@link #katib(String, Map)} names
 * one of Katib's own (Bayesian optimization, TPE, ...), which only Katib runs.
 */
public sealed interface Algorithm {
  /** Katib's algorithm names, as its {@code algorithmName} takes them. */
  Set<String> KATIB = Set.of("random", "grid", "bayesianoptimization", "tpe",
      "multivariate-tpe", "cmaes", "hyperband", "sobol");

  /**
   * Values drawn independently for every trial, from a generator seeded with {@code seed}.
   *
   * @param seed the generator's seed: the same seed proposes the same trials
   */
  record Random(long seed) implements Algorithm {}

  /** Every combination of the parameters' values, in name order. */
  record Grid() implements Algorithm {}

  /**
   * One of Katib's algorithms with its settings ({@code algorithmSettings}).
   *
   * @param name the algorithm's name, e.g. {@code bayesianoptimization}
   * @param settings its settings, e.g. {@code random_state=10}
   */
  record Katib(String name, Map<String, String> settings) implements Algorithm {
    /** Checks the name. */
    public Katib {
      Validators.requireText("algorithm", name);
      if (!KATIB.contains(name)) {
        throw InvalidInputException.of("algorithm", "'" + name + "' is not one of Katib's",
            "use one of " + new java.util.TreeSet<>(KATIB));
      }
      settings = Map.copyOf(settings);
    }
  }

  /** Random search with {@code seed}. */
  static Algorithm random(long seed) {
    return new Random(seed);
  }

  /** Grid search. */
  static Algorithm grid() {
    return new Grid();
  }

  /** Katib's algorithm {@code name} with {@code settings}; runs only through Katib. */
  static Algorithm katib(String name, Map<String, String> settings) {
    return new Katib(name, settings);
  }
}

package dev.fairing4j.deployer.tuning;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Where a search space's parameters come from, named as the Kubeflow SDK names them
 * ({@code Search.uniform}, {@code loguniform}, {@code choice}):
 *
 * <pre>{@code
 * Map.of("lr", Search.logUniform(0.001, 0.1),
 *        "momentum", Search.uniform(0.1, 0.9),
 *        "batch", Search.intRange(32, 128, 32),
 *        "optimizer", Search.choice("sgd", "adam"))
 * }</pre>
 */
public final class Search {
  private Search() {}

  /** Doubles from {@code min} to {@code max}, drawn uniformly. */
  public static Parameter.Uniform uniform(double min, double max) {
    return new Parameter.Uniform(min, max, Optional.empty());
  }

  /** Doubles from {@code min} to {@code max} (above 0) with a uniform logarithm. */
  public static Parameter.LogUniform logUniform(double min, double max) {
    return new Parameter.LogUniform(min, max);
  }

  /** Integers from {@code min} to {@code max}, both included. */
  public static Parameter.IntRange intRange(long min, long max) {
    return new Parameter.IntRange(min, max, 1);
  }

  /** Integers from {@code min} to {@code max}, both included, every {@code step}. */
  public static Parameter.IntRange intRange(long min, long max, long step) {
    return new Parameter.IntRange(min, max, step);
  }

  /** One of {@code values}. */
  public static Parameter.Choice choice(String... values) {
    return new Parameter.Choice(Arrays.asList(values));
  }

  /** One of {@code values}. */
  public static Parameter.Choice choice(List<String> values) {
    return new Parameter.Choice(values);
  }
}

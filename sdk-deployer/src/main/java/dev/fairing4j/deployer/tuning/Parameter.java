package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.InvalidInputException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One hyperparameter's feasible values, as Katib's {@code parameters[].feasibleSpace} and
 * Trainer's {@code searchSpace} describe them: a range of doubles (uniform or log-uniform), a
 * range of integers, or a list of choices. Made by {@link Search}; a value renders as the text a
 * script receives ({@code --lr=0.01}).
 */
public sealed interface Parameter {
  /**
   * Doubles from {@code min} to {@code max}, drawn uniformly; with a {@code step}, also a grid.
   *
   * @param min the smallest value
   * @param max the largest value
   * @param step the grid's spacing, when the space is searched by grid
   */
  record Uniform(double min, double max, Optional<Double> step) implements Parameter {
    /** Checks the bounds. */
    public Uniform {
      range("uniform", min, max);
      Objects.requireNonNull(step, "step");
      step.ifPresent(s -> positive("uniform step", s));
    }

    /** The same range, searched by grid every {@code step}. */
    public Uniform step(double newStep) {
      return new Uniform(min, max, Optional.of(newStep));
    }
  }

  /**
   * Doubles from {@code min} to {@code max} (both above 0) whose logarithm is drawn uniformly:
   * as many learning rates between 0.001 and 0.01 as between 0.01 and 0.1.
   *
   * @param min the smallest value, above 0
   * @param max the largest value
   */
  record LogUniform(double min, double max) implements Parameter {
    /** Checks the bounds. */
    public LogUniform {
      positive("logUniform min", min);
      range("logUniform", min, max);
    }
  }

  /**
   * Integers from {@code min} to {@code max}, both included, every {@code step}.
   *
   * @param min the smallest value
   * @param max the largest value
   * @param step the spacing, at least 1
   */
  record IntRange(long min, long max, long step) implements Parameter {
    /** Checks the bounds. */
    public IntRange {
      if (min > max) {
        throw InvalidInputException.of("intRange", "min " + min + " is above max " + max,
            "give the smaller bound first");
      }
      if (step < 1) {
        throw InvalidInputException.of("intRange step", step + " is below 1", "use 1 or more");
      }
    }

    /** How many values the range holds. */
    public long size() {
      return (max - min) / step + 1;
    }
  }

  /**
   * One of {@code values}, as given (categorical in Katib's terms).
   *
   * @param values the choices, at least one, no repeats
   */
  record Choice(List<String> values) implements Parameter {
    /** Copies the choices. */
    public Choice {
      values = List.copyOf(values);
      if (values.isEmpty()) {
        throw InvalidInputException.of("choice", "has no values", "give at least one");
      }
      if (values.stream().distinct().count() != values.size()) {
        throw InvalidInputException.of("choice", values + " repeats a value",
            "list each value once");
      }
    }
  }

  private static void range(String what, double min, double max) {
    if (!Double.isFinite(min) || !Double.isFinite(max)) {
      throw InvalidInputException.of(what, "bounds " + min + ".." + max + " are not finite",
          "give finite numbers");
    }
    if (min >= max) {
      throw InvalidInputException.of(what, "min " + min + " is not below max " + max,
          "give the smaller bound first; a single value is Search.choice(..)");
    }
  }

  private static void positive(String what, double value) {
    if (!(value > 0)) {
      throw InvalidInputException.of(what, value + " is not above 0", "use a positive number");
    }
  }
}

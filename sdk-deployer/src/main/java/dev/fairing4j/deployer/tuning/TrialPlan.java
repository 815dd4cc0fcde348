package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.InvalidInputException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The trials an algorithm proposes for a space, worked out before any runs: random draws from a
 * seeded generator, or the grid in name order. Pure and deterministic, so the same experiment
 * proposes the same trials in every JVM, and a resumed experiment knows which trials it ran.
 * Doubles are rendered with 6 significant digits: the value a script receives is the value
 * recorded.
 */
public final class TrialPlan {
  private static final MathContext DIGITS = new MathContext(6);

  private TrialPlan() {}

  /**
   * Up to {@code maxTrials} assignments (parameter name to the text a script receives), in
   * order; a grid smaller than {@code maxTrials} proposes its size.
   *
   * @throws InvalidInputException for a grid over a range without a step, or a Katib algorithm,
   *     which only Katib proposes
   */
  public static List<Map<String, String>> propose(SearchSpace space, Algorithm algorithm,
      int maxTrials) {
    if (maxTrials < 1) {
      throw InvalidInputException.of("maxTrials", maxTrials + " is below 1", "use 1 or more");
    }
    if (algorithm instanceof Algorithm.Random random) {
      return random(space, random.seed(), maxTrials);
    }
    if (algorithm instanceof Algorithm.Grid) {
      return grid(space, maxTrials);
    }
    Algorithm.Katib katib = (Algorithm.Katib) algorithm;
    throw InvalidInputException.of("algorithm", "Katib's '" + katib.name() + "' runs only"
        + " through Katib", "run the experiment on Katib, or use Algorithm.random(seed) or"
        + " Algorithm.grid() here");
  }

  private static List<Map<String, String>> random(SearchSpace space, long seed, int count) {
    SplittableRandom generator = new SplittableRandom(seed);
    List<Map<String, String>> trials = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Map<String, String> trial = new LinkedHashMap<>();
      space.parameters().forEach((name, parameter) -> trial.put(name, draw(parameter,
          generator)));
      trials.add(Collections.unmodifiableMap(trial));
    }
    return List.copyOf(trials);
  }

  private static String draw(Parameter parameter, SplittableRandom generator) {
    if (parameter instanceof Parameter.Uniform u) {
      return render(u.min() + generator.nextDouble() * (u.max() - u.min()));
    }
    if (parameter instanceof Parameter.LogUniform l) {
      return render(Math.exp(Math.log(l.min())
          + generator.nextDouble() * (Math.log(l.max()) - Math.log(l.min()))));
    }
    if (parameter instanceof Parameter.IntRange r) {
      return String.valueOf(r.min() + r.step() * generator.nextLong(r.size()));
    }
    Parameter.Choice c = (Parameter.Choice) parameter;
    return c.values().get(generator.nextInt(c.values().size()));
  }

  private static List<Map<String, String>> grid(SearchSpace space, int count) {
    List<Map<String, String>> trials = new ArrayList<>();
    trials.add(Map.of());
    for (Map.Entry<String, Parameter> entry : space.parameters().entrySet()) {
      List<String> values = gridValues(entry.getKey(), entry.getValue());
      List<Map<String, String>> next = new ArrayList<>();
      for (Map<String, String> partial : trials) {
        for (String value : values) {
          Map<String, String> trial = new LinkedHashMap<>(partial);
          trial.put(entry.getKey(), value);
          next.add(trial);
          if (next.size() > 100_000) {
            throw InvalidInputException.of("searchSpace", "the grid has over 100,000 points",
                "coarsen the steps, or use Algorithm.random(seed)");
          }
        }
      }
      trials = next;
    }
    return trials.stream().limit(count).map(Collections::unmodifiableMap).toList();
  }

  /** A parameter's grid points, as a script receives them. */
  static List<String> gridValues(String name, Parameter parameter) {
    if (parameter instanceof Parameter.Uniform u) {
      double step = u.step().orElseThrow(() -> InvalidInputException.of("searchSpace " + name,
          "a grid needs the range's step", "write Search.uniform(" + u.min() + ", " + u.max()
              + ").step(..), or use Algorithm.random(seed)"));
      List<String> values = new ArrayList<>();
      // Counted, not summed, so that rounding never adds or drops the last point.
      long points = (long) Math.floor((u.max() - u.min()) / step + 1e-9) + 1;
      for (long i = 0; i < points; i++) {
        values.add(render(u.min() + i * step));
      }
      return values;
    }
    if (parameter instanceof Parameter.LogUniform) {
      throw InvalidInputException.of("searchSpace " + name, "a log-uniform range has no grid",
          "list the values with Search.choice(..), or use Algorithm.random(seed)");
    }
    if (parameter instanceof Parameter.IntRange r) {
      List<String> values = new ArrayList<>();
      for (long v = r.min(); v <= r.max(); v += r.step()) {
        values.add(String.valueOf(v));
      }
      return values;
    }
    return ((Parameter.Choice) parameter).values();
  }

  /** A double as a script receives it: 6 significant digits, no exponent, no trailing zeros. */
  static String render(double value) {
    String text = new BigDecimal(value).round(DIGITS).stripTrailingZeros().toPlainString();
    return text.equals("-0") ? "0" : text;
  }
}

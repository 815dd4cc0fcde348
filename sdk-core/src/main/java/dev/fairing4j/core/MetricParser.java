package dev.fairing4j.core;

import dev.fairing4j.core.internal.Validators;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Finds training metrics and progress in log lines; an immutable value. {@link #defaults()}
 * understands what training scripts print most:
 * <ul>
 *   <li>Katib's stdout format: {@code {metricName: accuracy, metricValue: 0.7313};{metricName:
 *       loss, metricValue: 0.6649}}</li>
 *   <li>{@code name=value} pairs: {@code loss=0.5027}, {@code accuracy=0.7682}, {@code test
 *       loss=0.4123} (a name of one or two words; {@code --lr=0.1} arguments and addresses such
 *       as {@code 127.0.0.1} are not metrics)</li>
 *   <li>progress: PyTorch examples' {@code Train Epoch: 1 [640/60000 (1%)]} (metrics
 *       {@value #EPOCH} and {@value #PROGRESS}, the percent of the epoch) and Keras'
 *       {@code Epoch 3/10}, which also tells the number of epochs</li>
 * </ul>
 * Add your own with {@link #pattern(String)} or {@link #pattern(String, String)}:
 *
 * <pre>{@code
 * job.metrics(MetricParser.defaults().pattern("top1", "top-1 acc (?<value>[0-9.]+)"))
 * }</pre>
 */
public final class MetricParser {
  /** The metric a progress line gives: the epoch number, from 1. */
  public static final String EPOCH = "epoch";
  /** The metric a progress line gives: how far into its epoch, in percent. */
  public static final String PROGRESS = "progress";

  private static final String NUMBER = "[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?";
  private static final Pattern KATIB = Pattern.compile(
      "\\{\\s*metricName:\\s*([^,{}]+?)\\s*,\\s*metricValue:\\s*(" + NUMBER + ")\\s*}");
  // A name starts at a boundary (not after '-', so --lr=0.1 is an argument) and the number ends
  // at one (so 127.0.0.1 is no number).
  private static final String NAME_WORD = "[A-Za-z_][\\w.\\-/]*";
  private static final Pattern PAIR = Pattern.compile("(?<![\\w.\\-/])(" + NAME_WORD + "(?: "
      + NAME_WORD + ")?)\\s*=\\s*(" + NUMBER + ")%?(?=$|[\\s,;)\\]}|])");
  private static final Pattern TRAIN_EPOCH = Pattern.compile(
      "\\b[Ee]poch:?\\s*(\\d+)\\s*\\[\\s*(\\d+)\\s*/\\s*(\\d+)");
  private static final Pattern EPOCH_OF = Pattern.compile(
      "\\b[Ee]poch:?\\s*(\\d+)\\s*(?:/|of)\\s*(\\d+)\\b(?!\\s*\\])");

  private static final MetricParser DEFAULTS = new MetricParser(true, List.of());
  private static final MetricParser NONE = new MetricParser(false, List.of());

  private final boolean builtIn;
  private final List<Custom> custom;

  private record Custom(Optional<String> metric, Pattern pattern) {}

  private MetricParser(boolean builtIn, List<Custom> custom) {
    this.builtIn = builtIn;
    this.custom = List.copyOf(custom);
  }

  /** Katib's format, {@code name=value} pairs and progress lines. */
  public static MetricParser defaults() {
    return DEFAULTS;
  }

  /** Nothing built in: only the patterns added with {@link #pattern}. */
  public static MetricParser none() {
    return NONE;
  }

  /**
   * Adds a pattern with named groups {@code name} and {@code value}, found anywhere in a line,
   * as often as it occurs: e.g. {@code "(?<name>\\w+): (?<value>[0-9.]+)"} for Keras'
   * {@code loss: 0.2312}.
   *
   * @throws InvalidInputException when the pattern does not compile or lacks either group
   */
  public MetricParser pattern(String regex) {
    Pattern compiled = compile(regex);
    if (!hasGroup(regex, "name") || !hasGroup(regex, "value")) {
      throw InvalidInputException.of("pattern", "'" + regex + "' needs the groups (?<name>...)"
          + " and (?<value>...)", "add both named groups, or use pattern(metric, regex) for a"
          + " single metric");
    }
    return with(new Custom(Optional.empty(), compiled));
  }

  /**
   * Adds a pattern for one metric: its group {@code value} (or its first group) holds the
   * number, e.g. {@code pattern("top1", "top-1 acc (?<value>[0-9.]+)")}.
   *
   * @throws InvalidInputException when the name is blank, or the pattern does not compile or has
   *     no group
   */
  public MetricParser pattern(String metric, String regex) {
    Validators.requireText("metric", metric);
    Pattern compiled = compile(regex);
    if (compiled.matcher("").groupCount() == 0) {
      throw InvalidInputException.of("pattern", "'" + regex + "' has no group for the value",
          "put the number in a group: (?<value>[0-9.]+)");
    }
    return with(new Custom(Optional.of(metric.trim()), compiled));
  }

  private MetricParser with(Custom added) {
    List<Custom> copy = new ArrayList<>(custom);
    copy.add(added);
    return new MetricParser(builtIn, copy);
  }

  private static Pattern compile(String regex) {
    Objects.requireNonNull(regex, "pattern");
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw InvalidInputException.of("pattern", "'" + regex + "' is not a regular expression: "
          + e.getDescription(), "fix the expression (java.util.regex syntax)", e);
    }
  }

  private static boolean hasGroup(String regex, String group) {
    return regex.contains("(?<" + group + ">");
  }

  /**
   * What one line says: its metrics in the order written (a later value of the same name wins)
   * and its progress, if it is a progress line.
   */
  public Reading parse(String line) {
    Objects.requireNonNull(line, "line");
    Map<String, Double> metrics = new LinkedHashMap<>();
    Optional<Integer> epoch = Optional.empty();
    Optional<Integer> epochs = Optional.empty();
    Optional<Double> fraction = Optional.empty();
    if (builtIn) {
      Matcher katib = KATIB.matcher(line);
      boolean anyKatib = false;
      while (katib.find()) {
        anyKatib = true;
        put(metrics, katib.group(1), katib.group(2));
      }
      Matcher train = TRAIN_EPOCH.matcher(line);
      if (train.find()) {
        long done = Long.parseLong(train.group(2));
        long total = Long.parseLong(train.group(3));
        epoch = Optional.of(Integer.parseInt(train.group(1)));
        if (total > 0) {
          fraction = Optional.of(Math.min(1.0, (double) done / total));
        }
      } else {
        Matcher of = EPOCH_OF.matcher(line);
        if (of.find()) {
          epoch = Optional.of(Integer.parseInt(of.group(1)));
          epochs = Optional.of(Integer.parseInt(of.group(2)));
          fraction = Optional.of(0.0);
        }
      }
      epoch.ifPresent(e -> metrics.put(EPOCH, (double) e));
      Optional<Double> percent = fraction.map(f -> Math.round(f * 1000) / 10.0);
      percent.ifPresent(p -> metrics.put(PROGRESS, p));
      if (!anyKatib) {
        Matcher pair = PAIR.matcher(line);
        while (pair.find()) {
          put(metrics, pair.group(1), pair.group(2));
        }
      }
    }
    for (Custom pattern : custom) {
      Matcher matcher = pattern.pattern().matcher(line);
      while (matcher.find()) {
        String value;
        try {
          value = matcher.group("value");
        } catch (IllegalArgumentException e) {
          value = matcher.group(1);
        }
        put(metrics, pattern.metric().orElseGet(() -> matcher.group("name")), value);
      }
    }
    return new Reading(metrics, epoch, epochs, fraction);
  }

  private static void put(Map<String, Double> metrics, String name, String value) {
    if (name == null || value == null || name.isBlank()) {
      return;
    }
    try {
      metrics.put(name.trim(), Double.parseDouble(value.trim()));
    } catch (NumberFormatException e) {
      // a custom pattern caught something that is not a number: not a metric
    }
  }

  /**
   * What a line said.
   *
   * @param metrics the metrics by name, in the order written, progress ones included
   * @param epoch the epoch a progress line names
   * @param epochs the number of epochs, when the line tells it ({@code Epoch 3/10})
   * @param epochFraction how far into the epoch, from 0 to 1, for a progress line
   */
  public record Reading(Map<String, Double> metrics, Optional<Integer> epoch,
      Optional<Integer> epochs, Optional<Double> epochFraction) {
    /** Copies the map, keeping its order. */
    public Reading {
      metrics = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
    }

    /** True when the line had neither metrics nor progress. */
    public boolean isEmpty() {
      return metrics.isEmpty() && epoch.isEmpty();
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof MetricParser that && builtIn == that.builtIn
        && custom.size() == that.custom.size() && toString().equals(that.toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(builtIn ? "MetricParser[defaults" : "MetricParser[");
    for (Custom pattern : custom) {
      text.append(text.charAt(text.length() - 1) == '[' ? "" : ", ")
          .append(pattern.metric().map(m -> m + "=").orElse("")).append(pattern.pattern());
    }
    return text.append(']').toString();
  }
}

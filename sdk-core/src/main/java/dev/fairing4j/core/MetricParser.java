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
 *       loss=0.4123} (a name of one word, or a word of letters and one more), and
 *       {@code name: value} as the Trainer's examples and Keras print it: {@code Loss: 0.37},
 *       {@code val_loss: 0.2312}</li>
 *   <li>progress: PyTorch examples' {@code Train Epoch: 1 [640/60000 (1%)]} (metrics
 *       {@value #EPOCH} and {@value #PROGRESS}, the percent of the epoch: the script's own
 *       percentage where it prints one, since under a {@code DistributedSampler} its sample count
 *       covers only its share) and Keras' {@code Epoch 3/10}, which also tells the number of
 *       epochs</li>
 * </ul>
 * Not metrics: {@code --lr=0.1} arguments, addresses such as {@code 127.0.0.1}, keyword
 * arguments of a printed call ({@code Retry(total=4, ...)}), environment variables
 * ({@code PYTHONUNBUFFERED=1}, {@code MASTER_PORT=29500}), a value followed by another pair
 * ({@code master_addr=localhost agent_pid=1}), the bookkeeping torchrun and the elastic agent log
 * ({@code restart_count=0}, {@code group_rank=0}, {@code exitcode: 1}) and source lines a
 * traceback shows.
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
  // "Loss: 0.37": a colon right after the name, a blank after it (so 12:30 is no metric).
  // Not a duration or a size with its unit (%%time's "Wall time: 1.5 ms", "sys: 0 ns").
  private static final Pattern COLON = Pattern.compile("(?<![\\w.\\-/])([A-Za-z][\\w\\-/]*(?: "
      + "[A-Za-z][\\w\\-/]*)?):[ \\t]+(" + NUMBER + ")%?(?=$|[\\s,;)\\]}|])(?!\\s*(?:ns|µs|us|ms"
      + "|s|sec|secs|seconds|min|mins|minutes|h|hours|B|[KMGT]i?B|it/s|s/it)\\b)");
  private static final Pattern LETTERS = Pattern.compile("[A-Za-z]+");
  private static final Pattern ENVIRONMENT_NAME = Pattern.compile("[A-Z][A-Z0-9]*_[A-Z0-9_]*"
      + "|[A-Z][A-Z0-9]{7,}");
  // Lines a traceback shows from the source (IPython's "----> 3 x = 1", "      2 epochs = 2";
  // Python's frame line) carry assignments, not measurements.
  private static final Pattern SOURCE_CONTEXT = Pattern.compile(
      "^\\s*(?:-*>\\s*\\d+\\s|\\d+\\s{1,8}\\S|File \".*\", line \\d+)");
  /** What torchrun, the elastic agent and pip log about themselves. */
  private static final java.util.Set<String> BOOKKEEPING = java.util.Set.of("restart_count",
      "master_port", "group_rank", "group_world_size", "role_rank", "role_world_size",
      "local_rank", "local_world_size", "global_rank", "rank", "world_size", "agent_pid", "pid",
      "port", "exitcode", "error_file", "max_restarts", "nnodes", "nproc_per_node", "node_rank",
      "monitor_interval", "attempt", "retries");
  /**
   * "Train Epoch: 1 [...]" and "Epoch: 1" are progress lines, read as such; {@code epoch=3} stays
   * a pair, as before.
   */
  private static final java.util.Set<String> EPOCH_NAMES = java.util.Set.of("epoch",
      "train epoch", "test epoch");
  /** The two forms of a metric on a line, {@code name=value} then {@code name: value}. */
  private static final List<Pattern> FORMS = List.of(PAIR, COLON);
  private static final Pattern TRAIN_EPOCH = Pattern.compile(
      "\\b[Ee]poch:?\\s*(\\d+)\\s*\\[\\s*(\\d+)\\s*/\\s*(\\d+)(?:\\s*\\(\\s*("
      + NUMBER + ")\\s*%\\s*\\))?");
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
        if (train.group(4) != null) {
          // The script's own percentage: under a DistributedSampler the counts cover only this
          // replica's share ([29440/60000 (98%)]), the percentage the whole epoch.
          fraction = Optional.of(Math.min(1.0, Double.parseDouble(train.group(4)) / 100));
        } else if (total > 0) {
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
      if (!anyKatib && !SOURCE_CONTEXT.matcher(line).find()) {
        for (Pattern form : FORMS) {
          Matcher pair = form.matcher(line);
          while (pair.find()) {
            metricName(line, pair.start(1), pair.group(1))
                .filter(name -> form != COLON
                    || !EPOCH_NAMES.contains(name.toLowerCase(java.util.Locale.ROOT)))
                .ifPresent(name -> put(metrics, name, pair.group(2)));
          }
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

  /**
   * The metric a pair names, or empty when it is noise: a keyword argument of a printed call, an
   * environment variable, tool bookkeeping. Of two words, the first counts only when it is a
   * word of letters that is not itself a value ({@code test loss=0.4}, {@code Average loss:
   * 0.1}; not {@code addr=localhost agent_pid=1}).
   */
  private static Optional<String> metricName(String line, int start, String found) {
    String name = found;
    int nameStart = start;
    int space = found.indexOf(' ');
    if (space > 0) {
      String first = found.substring(0, space);
      boolean afterValue = start > 0 && "=:".indexOf(line.charAt(start - 1)) >= 0;
      if (!LETTERS.matcher(first).matches() || afterValue
          || BOOKKEEPING.contains(first.toLowerCase(java.util.Locale.ROOT))) {
        name = found.substring(space + 1);
        nameStart = start + space + 1;
      }
    }
    // keyword arguments of a call: Retry(total=4, connect=None)
    int before = nameStart - 1;
    while (before >= 0 && line.charAt(before) == ' ') {
      before--;
    }
    if (before >= 1 && (line.charAt(before) == '(' && Character.isLetterOrDigit(
        line.charAt(before - 1)) || line.charAt(before) == ',' && insideCall(line, before))) {
      return Optional.empty();
    }
    String lastWord = name.substring(name.lastIndexOf(' ') + 1);
    if (ENVIRONMENT_NAME.matcher(name).matches()
        || BOOKKEEPING.contains(name.toLowerCase(java.util.Locale.ROOT))
        || BOOKKEEPING.contains(lastWord.toLowerCase(java.util.Locale.ROOT))) {
      return Optional.empty();
    }
    return Optional.of(name);
  }

  /** Whether position {@code at} is inside {@code name(...)} on the line. */
  private static boolean insideCall(String line, int at) {
    int depth = 0;
    for (int i = at; i >= 0; i--) {
      char c = line.charAt(i);
      if (c == ')') {
        depth++;
      } else if (c == '(') {
        if (depth == 0) {
          return i > 0 && Character.isLetterOrDigit(line.charAt(i - 1));
        }
        depth--;
      }
    }
    return false;
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

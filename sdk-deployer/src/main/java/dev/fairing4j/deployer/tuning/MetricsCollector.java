package dev.fairing4j.deployer.tuning;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.fairing4j.core.InvalidInputException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * How a trial's metrics are collected, as Katib's {@code metricsCollectorSpec} says it: the
 * collector (its {@code StdOut} sidecar reading the trial's output, a {@code File} it writes, a
 * {@code TensorFlowEvent} directory, a {@code PrometheusMetric} endpoint, or a {@code Custom}
 * container) and, for text, the filters ({@code metricsFormat}): regular expressions in Go's
 * syntax (RE2) whose first group is a metric's name and second its value, applied to every line
 * that names a metric, every match counting. An immutable value.
 *
 * <p>The default, {@link #stdOut()}, reads both forms Katib's own trial examples print:
 * {@code accuracy=0.7280} (Katib's default filter) and {@code {metricName: accuracy, metricValue:
 * 0.7280}} (the filter of Katib's file-metrics-collector example). The SDK's own trials
 * ({@link TuningBackend#CLIENT}) read the trial's log through the same filters with the same
 * rules, so a search gets the same objective values on this machine as on Katib; they can read
 * only what a log shows ({@code StdOut}). {@link Experiment#dryRun()} says when the training
 * script prints the objective in a form the filters do not read.
 */
public final class MetricsCollector {
  /** Katib's default filter: {@code name=value}. */
  public static final String NAME_EQUALS_VALUE =
      "([\\w|-]+)\\s*=\\s*([+-]?\\d*(\\.\\d+)?([Ee][+-]?\\d+)?)";
  /** The form Katib's trial examples print: {@code {metricName: loss, metricValue: 0.52}}. */
  public static final String METRIC_NAME_VALUE =
      "{metricName: ([\\w|-]+), metricValue: ([+-]?\\d*(\\.\\d+)?([Ee][+-]?\\d+)?)}";
  // Go's strconv.ParseFloat in decimal, which Java's parser would widen ("1d", "0x1p3").
  private static final java.util.regex.Pattern DECIMAL = java.util.regex.Pattern.compile(
      "[+-]?(\\d+\\.?\\d*|\\.\\d+)([Ee][+-]?\\d+)?");
  // Katib's webhook: "two top subexpressions are required".
  private static final Pattern TWO_GROUPS = Pattern.compile(".*\\(.*\\).*\\(.*\\).*");

  /** The collector kinds of Katib. */
  public enum Kind {
    /** A sidecar reads the primary container's output (stdout and stderr). */
    STDOUT("StdOut"),
    /** A sidecar reads a file the trial writes. */
    FILE("File"),
    /** A sidecar reads TensorFlow event files from a directory. */
    TENSORFLOW_EVENT("TensorFlowEvent"),
    /** A sidecar scrapes the trial's Prometheus endpoint. */
    PROMETHEUS("PrometheusMetric"),
    /** A container of the user's collects. */
    CUSTOM("Custom");

    private final String katibName;

    Kind(String katibName) {
      this.katibName = katibName;
    }

    /** The name in Katib's {@code collector.kind}. */
    public String katibName() {
      return katibName;
    }
  }

  /** A file collector's format. */
  public enum FileFormat {
    /** Lines read through the filters. */
    TEXT,
    /** One JSON object per line; each metric a key whose value is a string. */
    JSON
  }

  private final Kind kind;
  private final List<String> filters;
  private final Optional<String> path;
  private final FileFormat format;
  private final int port;
  private final Optional<Map<String, Object>> container;
  // The filters compiled once (Katib's own default when there are none).
  private final List<Pattern> compiled;

  private MetricsCollector(Kind kind, List<String> filters, Optional<String> path,
      FileFormat format, int port, Optional<Map<String, Object>> container) {
    this.kind = kind;
    this.filters = List.copyOf(filters);
    this.path = path;
    this.format = format;
    this.port = port;
    this.container = container;
    List<Pattern> patterns = new ArrayList<>();
    for (String filter : this.filters.isEmpty() ? List.of(NAME_EQUALS_VALUE) : this.filters) {
      patterns.add(Pattern.compile(filter));
    }
    this.compiled = List.copyOf(patterns);
  }

  /** The filters {@link #stdOut()} and {@link #file(String)} start with. */
  public static List<String> defaultFilters() {
    return List.of(NAME_EQUALS_VALUE, METRIC_NAME_VALUE);
  }

  /** Katib's StdOut collector with {@link #defaultFilters()}: the default. */
  public static MetricsCollector stdOut() {
    return new MetricsCollector(Kind.STDOUT, defaultFilters(), Optional.empty(),
        FileFormat.TEXT, 0, Optional.empty());
  }

  /**
   * Katib's File collector: the trial writes its metrics to {@code path} (absolute), read as
   * text through {@link #defaultFilters()} unless {@link #json()} or {@link #filters} say
   * otherwise. Only Katib reads it: run on {@link TuningBackend#KATIB}.
   *
   * @throws InvalidInputException naming {@code metricsCollector} for a relative path
   */
  public static MetricsCollector file(String path) {
    return new MetricsCollector(Kind.FILE, defaultFilters(), Optional.of(absolute(path,
        "/var/log/katib/metrics.log")), FileFormat.TEXT, 0, Optional.empty());
  }

  /**
   * Katib's TensorFlowEvent collector: the trial writes event files (TensorBoard summaries)
   * under {@code directory} (absolute). Only Katib reads them.
   */
  public static MetricsCollector tensorFlowEvent(String directory) {
    return new MetricsCollector(Kind.TENSORFLOW_EVENT, List.of(), Optional.of(absolute(
        directory, "/var/log/katib/tfevent/")), FileFormat.TEXT, 0, Optional.empty());
  }

  /**
   * Katib's PrometheusMetric collector: it scrapes {@code http://<pod>:<port><path>} of the
   * trial. Only Katib reads it.
   */
  public static MetricsCollector prometheus(int port, String path) {
    if (port < 1 || port > 65535) {
      throw InvalidInputException.of("metricsCollector", "port " + port + " is not a port",
          "give the trial's metrics port, e.g. 8080");
    }
    if (path == null || !path.startsWith("/")) {
      throw InvalidInputException.of("metricsCollector", "path '" + path + "' does not start"
          + " with /", "give the metrics path, e.g. \"/metrics\"");
    }
    return new MetricsCollector(Kind.PROMETHEUS, List.of(), Optional.of(path), FileFormat.TEXT,
        port, Optional.empty());
  }

  /**
   * Katib's Custom collector: the container {@code image} run beside the trial with
   * {@code args}. Only Katib runs it.
   */
  public static MetricsCollector custom(String image, String... args) {
    dev.fairing4j.core.internal.Validators.requireText("metricsCollector image", image);
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("name", "custom-metrics-collector");
    spec.put("image", image);
    if (args.length > 0) {
      spec.put("args", List.of(args));
    }
    return new MetricsCollector(Kind.CUSTOM, List.of(), Optional.empty(), FileFormat.TEXT, 0,
        Optional.of(spec));
  }

  /**
   * The same collector with these filters instead (Go RE2 syntax, a metric's name in the first
   * group and its value in the second), e.g. {@code "Accuracy: ([\\d.]+)"} would not do, but
   * {@code "(Accuracy): ([\\d.]+)"} does.
   *
   * @throws InvalidInputException naming {@code metricsFormat} for a filter Go cannot compile,
   *     one without two groups, or a collector that takes no filters
   */
  public MetricsCollector filters(String... regexes) {
    if (kind != Kind.STDOUT && !(kind == Kind.FILE && format == FileFormat.TEXT)) {
      throw InvalidInputException.of("metricsFormat", "a " + kind.katibName()
          + (kind == Kind.FILE ? " collector of JSON" : " collector") + " takes no filters",
          "give filters to MetricsCollector.stdOut() or file(..) in text");
    }
    if (regexes.length == 0) {
      throw InvalidInputException.of("metricsFormat", "no filter given", "give at least one,"
          + " or keep the default filters: MetricsCollector.defaultFilters()");
    }
    for (String regex : regexes) {
      check(regex);
    }
    return new MetricsCollector(kind, List.of(regexes), path, format, port, container);
  }

  /**
   * The same File collector reading one JSON object per line ({@code {"accuracy": "0.73"}}, each
   * metric's value a string, as Katib's JSON format requires); no filters.
   */
  public MetricsCollector json() {
    if (kind != Kind.FILE) {
      throw InvalidInputException.of("metricsCollector", "JSON is a format of the File"
          + " collector, not of " + kind.katibName(), "use MetricsCollector.file(path).json()");
    }
    return new MetricsCollector(kind, List.of(), path, FileFormat.JSON, port, container);
  }

  private static void check(String regex) {
    Objects.requireNonNull(regex, "filter");
    try {
      Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw InvalidInputException.of("metricsFormat", "'" + regex + "' is not a regular"
          + " expression Go (and so Katib) compiles: " + e.getMessage(), "write it in RE2"
          + " syntax (no look-behind or back-references)");
    }
    if (!TWO_GROUPS.matches(regex)) {
      throw InvalidInputException.of("metricsFormat", "'" + regex + "' has no two groups",
          "put the metric's name in the first group and its value in the second:"
              + " \"(accuracy)=([\\\\d.]+)\"");
    }
  }

  private static String absolute(String path, String example) {
    if (path == null || !path.startsWith("/")) {
      throw InvalidInputException.of("metricsCollector", "'" + path + "' is not an absolute"
          + " path in the trial's container", "give one such as " + example);
    }
    return path;
  }

  /** The collector's kind. */
  public Kind kind() {
    return kind;
  }

  /** The filters, for text; empty for the kinds that read no text. */
  public List<String> filterList() {
    return filters;
  }

  /** The file, directory or HTTP path the collector reads, for the kinds that have one. */
  public Optional<String> path() {
    return path;
  }

  /** Whether the SDK's own trials can read it: from the trial's log, as StdOut does. */
  public boolean readsLog() {
    return kind == Kind.STDOUT;
  }

  /** Whether the collector reads text through filters, which a line can be checked against. */
  boolean readsText() {
    return kind == Kind.STDOUT || kind == Kind.FILE && format == FileFormat.TEXT;
  }

  /**
   * The values of {@code metric} in {@code lines}, in order, as Katib's text collector finds
   * them: a line that does not contain the name is skipped; in the others every filter's every
   * match whose first group (trimmed) is the name gives its second group (trimmed) as a value.
   * A value that is not a decimal number (the default filter matches {@code x=} with an empty
   * one) is left out, as Katib cannot compare it.
   */
  public List<Double> values(String metric, List<String> lines) {
    List<Double> values = new ArrayList<>();
    for (String line : lines) {
      if (line.contains(metric)) {
        matches(line, (name, value) -> {
          if (name.equals(metric)) {
            values.add(Double.parseDouble(value));
          }
        });
      }
    }
    return values;
  }

  /** The metric names the filters find with a number on {@code line}, whatever the objective. */
  List<String> names(String line) {
    List<String> names = new ArrayList<>();
    matches(line, (name, value) -> names.add(name));
    return names;
  }

  /**
   * Every match of every filter on {@code line} whose value is a decimal number, as its trimmed
   * name and value, in order.
   */
  private void matches(String line, BiConsumer<String, String> each) {
    for (Pattern filter : compiled) {
      Matcher found = filter.matcher(line);
      while (found.find()) {
        if (found.groupCount() < 2 || found.group(1) == null || found.group(2) == null) {
          continue;
        }
        String value = found.group(2).trim();
        if (DECIMAL.matcher(value).matches()) {
          each.accept(found.group(1).trim(), value);
        }
      }
    }
  }

  /** Katib's {@code metricsCollectorSpec} for this collector. */
  Map<String, Object> render() {
    Map<String, Object> collector = new LinkedHashMap<>();
    collector.put("kind", kind.katibName());
    container.ifPresent(spec -> collector.put("customCollector", spec));
    Map<String, Object> source = new LinkedHashMap<>();
    switch (kind) {
      case FILE -> source.put("fileSystemPath", Map.of("path", path.orElseThrow(), "kind",
          "File", "format", format.name()));
      case TENSORFLOW_EVENT -> source.put("fileSystemPath", Map.of("path", path.orElseThrow(),
          "kind", "Directory"));
      case PROMETHEUS -> source.put("httpGet", Map.of("port", port, "path",
          path.orElseThrow()));
      default -> { }
    }
    if (readsText()) {
      source.put("filter", Map.of("metricsFormat", filters));
    }
    Map<String, Object> spec = new LinkedHashMap<>();
    if (!source.isEmpty()) {
      spec.put("source", source);
    }
    spec.put("collector", collector);
    return spec;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof MetricsCollector that && kind == that.kind
        && filters.equals(that.filters) && path.equals(that.path) && format == that.format
        && port == that.port && container.equals(that.container);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, filters, path, format, port, container);
  }

  /** E.g. {@code StdOut(filters=[...])}, {@code File(/katib/mnist.log, JSON)}. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(kind.katibName()).append('(');
    List<String> parts = new ArrayList<>();
    path.ifPresent(p -> parts.add(kind == Kind.PROMETHEUS ? ":" + port + p : p));
    if (kind == Kind.FILE) {
      parts.add(format.name());
    }
    container.ifPresent(c -> parts.add(String.valueOf(c.get("image"))));
    if (readsText()) {
      parts.add(filters.equals(defaultFilters()) ? "default filters" : "filters=" + filters);
    }
    return text.append(String.join(", ", parts)).append(')').toString();
  }
}

package dev.fairing4j.core;

import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metrics a job's replicas logged, as time series per replica: what {@link
 * TrainingJob#metrics()} reads from the logs, or a {@link MetricsRecorder} collects while they
 * stream. An immutable snapshot; {@code toString()} is a table of the latest value of each metric
 * per replica, and {@link #plot()} draws the curves.
 *
 * <pre>{@code
 * job.metrics()                        // REPLICA  EPOCH  PROGRESS  loss    accuracy
 * job.metrics().latest("accuracy")     // Optional[0.7682], from the lead replica
 * job.metrics().series("master-0", "loss")
 * job.metrics().plot().save(Path.of("loss.png"))
 * }</pre>
 */
public final class JobMetrics implements Displayable {
  private static final Pattern REPLICA = Pattern.compile("(.*?)-(\\d+)");
  private static final List<String> LEADS = List.of("master", "chief", "launcher", "worker");

  private final String job;
  // replica -> metric -> points, replicas lead first, metrics in first-seen order
  private final Map<String, Map<String, List<MetricPoint>>> series;

  JobMetrics(String job, Map<String, Map<String, List<MetricPoint>>> series) {
    KernelBridge.install();  // the first displayable value registers the renderer
    this.job = job;
    Map<String, Map<String, List<MetricPoint>>> copy = new TreeMap<>(JobMetrics::compareReplicas);
    series.forEach((replica, metrics) -> {
      Map<String, List<MetricPoint>> byName = new LinkedHashMap<>();
      metrics.forEach((name, points) -> byName.put(name, List.copyOf(points)));
      copy.put(replica, Collections.unmodifiableMap(byName));
    });
    this.series = Collections.unmodifiableMap(copy);
  }

  /** The metrics in {@code lines} of {@code job}, found by {@link MetricParser#defaults()}. */
  public static JobMetrics of(String job, Collection<LogLine> lines) {
    return of(job, lines, MetricParser.defaults());
  }

  /** The metrics in {@code lines} of {@code job}, found by {@code parser}. */
  public static JobMetrics of(String job, Collection<LogLine> lines, MetricParser parser) {
    MetricsRecorder recorder = MetricsRecorder.of(job, parser);
    lines.forEach(recorder::accept);
    return recorder.metrics();
  }

  /** The job the metrics belong to. */
  public String job() {
    return job;
  }

  /** The replicas that logged a metric, lead first ({@code master-0}, then workers by index). */
  public List<String> replicas() {
    return List.copyOf(series.keySet());
  }

  /** Every metric name, in the order first seen (lead replica first). */
  public List<String> names() {
    Set<String> names = new LinkedHashSet<>();
    series.values().forEach(metrics -> names.addAll(metrics.keySet()));
    return List.copyOf(names);
  }

  /** The values of {@code name} logged by {@code replica}, oldest first; empty when none. */
  public List<MetricPoint> series(String replica, String name) {
    return series.getOrDefault(replica, Map.of()).getOrDefault(name, List.of());
  }

  /** The last value of {@code name} that {@code replica} logged. */
  public Optional<Double> latest(String replica, String name) {
    List<MetricPoint> points = series(replica, name);
    return points.isEmpty() ? Optional.empty()
        : Optional.of(points.get(points.size() - 1).value());
  }

  /** The last value of {@code name} from the first replica (lead first) that logged it. */
  public Optional<Double> latest(String name) {
    for (String replica : series.keySet()) {
      Optional<Double> value = latest(replica, name);
      if (value.isPresent()) {
        return value;
      }
    }
    return Optional.empty();
  }

  /**
   * These metrics plus {@code values} that {@code source} reported at {@code time}, each appended
   * to its series (a point older than the series' last one goes before it). For metrics that come
   * from elsewhere than the logs, e.g. a TrainJob's {@code status.trainerStatus} as source
   * {@code trainer}.
   */
  public JobMetrics plus(String source, Map<String, Double> values, Instant time) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(values, "values");
    Objects.requireNonNull(time, "time");
    Map<String, List<MetricPoint>> points = new LinkedHashMap<>();
    values.forEach((name, value) -> points.put(name, List.of(new MetricPoint(time, value))));
    return plusSeries(source, points);
  }

  /**
   * These metrics plus the {@code series} (metric name to points) that {@code source} reported,
   * merged into its series in time order: a whole history in one step, e.g. every report a local
   * TrainJob's trainer posted to its status server.
   */
  public JobMetrics plusSeries(String source, Map<String, List<MetricPoint>> series) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(series, "series");
    if (series.values().stream().allMatch(List::isEmpty)) {
      return this;
    }
    Map<String, Map<String, List<MetricPoint>>> copy = new LinkedHashMap<>();
    this.series.forEach((replica, metrics) -> {
      Map<String, List<MetricPoint>> byName = new LinkedHashMap<>();
      metrics.forEach((name, points) -> byName.put(name, new ArrayList<>(points)));
      copy.put(replica, byName);
    });
    Map<String, List<MetricPoint>> target = copy.computeIfAbsent(source, s -> new LinkedHashMap<>());
    series.forEach((name, added) -> {
      if (!added.isEmpty()) {
        List<MetricPoint> points = target.computeIfAbsent(name, n -> new ArrayList<>());
        points.addAll(added);
        points.sort(Comparator.comparing(MetricPoint::time));
      }
    });
    return new JobMetrics(job, copy);
  }

  /**
   * These metrics as a job that ended in {@code status} leaves them: when it succeeded, every
   * replica that reported progress is done (100%), since a script's last progress line comes
   * before its last batch (98% under a DistributedSampler, 64% for a short last epoch).
   */
  JobMetrics endedAs(JobStatus status) {
    if (status.phase() != JobPhase.SUCCEEDED) {
      return this;
    }
    Map<String, Map<String, List<MetricPoint>>> copy = new LinkedHashMap<>();
    series.forEach((replica, metrics) -> {
      Map<String, List<MetricPoint>> byName = new LinkedHashMap<>();
      metrics.forEach((name, points) -> {
        List<MetricPoint> kept = new ArrayList<>(points);
        if (name.equals(MetricParser.PROGRESS) && !kept.isEmpty()
            && kept.get(kept.size() - 1).value() < 100) {
          Instant last = kept.get(kept.size() - 1).time();
          Instant end = status.completionTime().filter(t -> t.isAfter(last)).orElse(last);
          kept.add(new MetricPoint(end, 100.0));
        }
        byName.put(name, kept);
      });
      copy.put(replica, byName);
    });
    return new JobMetrics(job, copy);
  }

  /** True when no replica logged a metric. */
  public boolean isEmpty() {
    return series.isEmpty();
  }

  /**
   * The curves of every metric but {@value MetricParser#EPOCH} and
   * {@value MetricParser#PROGRESS}, one panel each, a line per replica; show it in a notebook,
   * or save it to a PNG or SVG file.
   */
  public MetricsPlot plot() {
    return MetricsPlot.of(this);
  }

  private List<String> header() {
    List<String> header = new ArrayList<>(List.of("REPLICA"));
    names().forEach(name -> header.add(name.equals(MetricParser.EPOCH) ? "EPOCH"
        : name.equals(MetricParser.PROGRESS) ? "PROGRESS" : name));
    return header;
  }

  private List<List<String>> rows() {
    List<String> names = names();
    List<List<String>> rows = new ArrayList<>();
    for (String replica : series.keySet()) {
      List<String> row = new ArrayList<>(List.of(replica));
      for (String name : names) {
        row.add(latest(replica, name).map(v -> name.equals(MetricParser.PROGRESS)
            ? format(v) + "%" : format(v)).orElse("-"));
      }
      rows.add(row);
    }
    return rows;
  }

  private String none() {
    return "no metrics in the logs of " + job + " yet";
  }

  /** The latest value of each metric per replica, as an aligned table. */
  @Override
  public String toText() {
    return isEmpty() ? none() : TextTable.text(header(), rows());
  }

  /** The same table in HTML. */
  @Override
  public String toHtml() {
    return isEmpty() ? "<p>" + TextTable.escape(none()) + "</p>"
        : TextTable.html(header(), rows());
  }

  @Override
  public String toString() {
    return toText();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof JobMetrics that && job.equals(that.job) && series.equals(that.series);
  }

  @Override
  public int hashCode() {
    return job.hashCode() * 31 + series.hashCode();
  }

  /** Up to four decimals, without trailing zeros; whole numbers plain. */
  static String format(double value) {
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return String.valueOf((long) value);
    }
    String text = String.format(Locale.ROOT, Math.abs(value) < 1e-3 ? "%.3e" : "%.4f", value);
    return text.contains("e") ? text : text.replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  /**
   * Orders replica names ({@code master-0}, {@code worker-1}) lead first: master, chief,
   * launcher, worker, then other types by name; within a type by index. The first is the replica
   * whose output Katib's collector reads.
   */
  public static int compareReplicas(String a, String b) {
    return REPLICA_ORDER.compare(a, b);
  }

  private static final Comparator<String> REPLICA_ORDER = Comparator
      .comparingInt((String r) -> {
        int lead = LEADS.indexOf(type(r));
        return lead < 0 ? LEADS.size() : lead;
      })
      .thenComparing(JobMetrics::type)
      .thenComparingLong(JobMetrics::index)
      .thenComparing(Comparator.naturalOrder());

  private static String type(String replica) {
    Matcher matcher = REPLICA.matcher(replica);
    return matcher.matches() ? matcher.group(1) : replica;
  }

  private static long index(String replica) {
    Matcher matcher = REPLICA.matcher(replica);
    return matcher.matches() ? Long.parseLong(matcher.group(2)) : -1;
  }
}

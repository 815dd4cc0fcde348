package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.MetricParser;
import dev.fairing4j.core.MetricPoint;
import dev.fairing4j.core.TrainingJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A trial's objective as Katib's collector reads it, from the trial's log: the lines of its lead
 * replica (the primary pod whose output Katib's sidecar reads: the master, else the first
 * worker), through the collector's filters, every value in order.
 *
 * @param metric the objective's metric
 * @param collector the filters read through
 * @param lines the lead replica's lines
 * @param series the values found, in the order logged (times from the lines, when they have one)
 */
record TrialReading(String metric, MetricsCollector collector, List<String> lines,
    List<MetricPoint> series) {

  /** Copies the lists. */
  TrialReading {
    lines = List.copyOf(lines);
    series = List.copyOf(series);
  }

  /** Reads {@code job}'s log now. */
  static TrialReading of(TrainingJob job, String metric, MetricsCollector collector) {
    List<LogLine> all = job.logs().snapshot();
    Optional<String> lead = all.stream().map(LogLine::replica).distinct()
        .min(JobMetrics::compareReplicas);
    List<String> lines = new ArrayList<>();
    List<MetricPoint> series = new ArrayList<>();
    Instant last = Instant.EPOCH;
    for (LogLine line : all) {
      if (lead.isEmpty() || !line.replica().equals(lead.get())) {
        continue;
      }
      lines.add(line.text());
      last = line.timestamp().orElse(last);
      for (double value : collector.values(metric, List.of(line.text()))) {
        series.add(new MetricPoint(last, value));
      }
    }
    return new TrialReading(metric, collector, lines, series);
  }

  /**
   * Why {@link #series} is empty, for the trials table: which metrics the filters did read, and
   * a line that names the metric in a form they do not read, with the fix.
   */
  String whyNoValue() {
    StringBuilder why = new StringBuilder("its log has no value of " + metric + " that the"
        + " metrics collector's filters read (" + forms() + ")");
    List<String> read = new ArrayList<>();
    for (String line : lines) {
      for (String name : collector.names(line)) {
        if (!read.contains(name)) {
          read.add(name);
        }
      }
    }
    if (!read.isEmpty()) {
      why.append("; they read ").append(String.join(", ", read));
    }
    lines.stream().filter(l -> l.contains(metric) || MetricParser.defaults().parse(l)
        .metrics().containsKey(metric)).findFirst().ifPresent(line -> why.append("; the line '")
        .append(line.length() > 120 ? line.substring(0, 117) + "..." : line)
        .append("' names it in a form they do not read: print ").append(metric)
        .append("=<value>, or add a filter with .metricsCollector(MetricsCollector.stdOut()"
            + ".filters(..))"));
    return why.toString();
  }

  private String forms() {
    List<String> forms = new ArrayList<>();
    for (String filter : collector.filterList()) {
      if (filter.equals(MetricsCollector.NAME_EQUALS_VALUE)) {
        forms.add(metric + "=<number>");
      } else if (filter.equals(MetricsCollector.METRIC_NAME_VALUE)) {
        forms.add("{metricName: " + metric + ", metricValue: <number>}");
      } else {
        forms.add(filter);
      }
    }
    return String.join(" or ", forms);
  }

}

package dev.fairing4j.core;

import dev.fairing4j.core.internal.Validators;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Collects the metrics of a job from log lines as they stream, for when the lines will not be
 * there to read later (a cluster whose operator deletes the pods at the end). Thread-safe: the
 * replicas' follower threads may call {@link #accept} at once.
 *
 * <pre>{@code
 * var recorder = MetricsRecorder.of(job.name());
 * try (var logs = job.logs().stream(recorder.andThen(line -> System.out.println(line)))) {
 *   job.waitForCompletion(Duration.ofMinutes(30));
 * }
 * recorder.metrics()       // loss, accuracy, ... per replica
 * }</pre>
 * {@link TrainingJob#metrics()} reads the logs instead, and needs no recorder while they exist.
 */
public final class MetricsRecorder implements Consumer<LogLine> {
  private final String job;
  private final MetricParser parser;
  private final Clock clock;
  private final Map<String, Map<String, List<MetricPoint>>> series = new LinkedHashMap<>();

  private MetricsRecorder(String job, MetricParser parser, Clock clock) {
    this.job = Validators.requireText("job", job);
    this.parser = Objects.requireNonNull(parser, "parser");
    this.clock = clock;
  }

  /** A recorder for {@code job} with {@link MetricParser#defaults()}. */
  public static MetricsRecorder of(String job) {
    return new MetricsRecorder(job, MetricParser.defaults(), Clock.systemUTC());
  }

  /** A recorder for {@code job} with {@code parser}. */
  public static MetricsRecorder of(String job, MetricParser parser) {
    return new MetricsRecorder(job, parser, Clock.systemUTC());
  }

  /** Parses one line; returns what it said (empty for most lines). */
  public MetricParser.Reading record(LogLine line) {
    MetricParser.Reading reading = parser.parse(line.text());
    if (!reading.metrics().isEmpty()) {
      Instant time = line.timestamp().orElseGet(clock::instant);
      synchronized (series) {
        Map<String, List<MetricPoint>> replica = series.computeIfAbsent(line.replica(),
            r -> new LinkedHashMap<>());
        reading.metrics().forEach((name, value) -> replica.computeIfAbsent(name,
            n -> new ArrayList<>()).add(new MetricPoint(time, value)));
      }
    }
    return reading;
  }

  @Override
  public void accept(LogLine line) {
    record(line);
  }

  /** The metrics so far, an immutable snapshot. */
  public JobMetrics metrics() {
    synchronized (series) {
      return new JobMetrics(job, series);
    }
  }

  @Override
  public String toString() {
    return "MetricsRecorder(" + job + ", " + parser + ")";
  }
}

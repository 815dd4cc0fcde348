package dev.fairing4j.core.internal;

import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.MetricParser;
import dev.fairing4j.core.ProgressEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a job's streaming log lines into {@link ProgressEvent.TrainingProgress}: per replica, the
 * epoch and how far into it (from progress lines), the pace between the first and the latest
 * progress line (so an estimate of the time left), and the latest metrics. Thread-safe: the
 * replicas' followers call it at once.
 */
public final class TrainingTracker {
  private final String job;
  private final MetricParser parser;
  private final Clock clock;
  private final Map<String, Replica> replicas = new HashMap<>();

  /** A tracker for {@code job} using {@code parser}, timing lines without a timestamp by {@code clock}. */
  public TrainingTracker(String job, MetricParser parser, Clock clock) {
    this.job = job;
    this.parser = parser;
    this.clock = clock;
  }

  private static final class Replica {
    Optional<Integer> epochs = Optional.empty();
    Optional<Integer> epoch = Optional.empty();
    double fraction;
    Instant firstTime;
    double firstPosition;
    Instant lastTime;
    double lastPosition;
    final Map<String, Double> metrics = new LinkedHashMap<>();
  }

  /** What {@code line} changed, as an event; empty for lines without metrics or progress. */
  public Optional<ProgressEvent.TrainingProgress> accept(LogLine line) {
    MetricParser.Reading reading = parser.parse(line.text());
    if (reading.isEmpty()) {
      return Optional.empty();
    }
    Instant time = line.timestamp().orElseGet(clock::instant);
    synchronized (replicas) {
      Replica replica = replicas.computeIfAbsent(line.replica(), r -> new Replica());
      reading.epochs().ifPresent(n -> replica.epochs = Optional.of(n));
      if (reading.epoch().isPresent()) {
        replica.epoch = reading.epoch();
        replica.fraction = reading.epochFraction().orElse(0.0);
        double position = replica.epoch.get() - 1 + replica.fraction;
        if (replica.firstTime == null || position < replica.lastPosition) {
          // The first progress line, or a restarted replica counting from the start again.
          replica.firstTime = time;
          replica.firstPosition = position;
        }
        replica.lastTime = time;
        replica.lastPosition = position;
      }
      reading.metrics().forEach((name, value) -> {
        if (!name.equals(MetricParser.EPOCH) && !name.equals(MetricParser.PROGRESS)) {
          replica.metrics.put(name, value);
        }
      });
      return Optional.of(event(line.replica(), replica));
    }
  }

  private ProgressEvent.TrainingProgress event(String name, Replica replica) {
    Optional<Double> percent = Optional.empty();
    Optional<Duration> eta = Optional.empty();
    if (replica.epoch.isPresent()) {
      double end = replica.epochs.map(n -> (double) n).orElse((double) replica.epoch.get());
      double span = replica.epochs.map(n -> (double) n).orElse(1.0);
      double done = replica.epochs.isPresent() ? replica.lastPosition : replica.fraction;
      percent = Optional.of(Math.max(0, Math.min(100, done / span * 100)));
      double advanced = replica.lastPosition - replica.firstPosition;
      long millis = Duration.between(replica.firstTime, replica.lastTime).toMillis();
      if (advanced > 0 && millis > 0) {
        double left = Math.max(0, end - replica.lastPosition);
        eta = Optional.of(Duration.ofMillis(Math.round(left / advanced * millis)));
      }
    }
    return new ProgressEvent.TrainingProgress(job, name, replica.epoch, replica.epochs, percent,
        eta, replica.metrics);
  }
}

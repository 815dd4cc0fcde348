package dev.fairing4j.core;

import java.time.Instant;
import java.util.Objects;

/**
 * One value of a metric, as a replica logged it.
 *
 * @param time when the line was written (the log's timestamp; when the source gives none, when
 *     the line was read)
 * @param value the number
 */
public record MetricPoint(Instant time, double value) {
  /** Checks the time. */
  public MetricPoint {
    Objects.requireNonNull(time, "time");
  }

  @Override
  public String toString() {
    return JobMetrics.format(value) + " at " + time;
  }
}

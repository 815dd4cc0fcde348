package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.MetricPoint;
import java.util.List;
import java.util.Optional;

/**
 * Which of the values a trial logged for a metric counts, as Katib's {@code metricStrategies}
 * say it: the last one, the highest or the lowest. Katib's default for the objective follows its
 * direction (the highest value of a metric to maximize, the lowest of one to minimize).
 */
public enum MetricStrategy {
  /** The value logged last. */
  LATEST,
  /** The highest value logged. */
  MAX,
  /** The lowest value logged. */
  MIN;

  /** The value of {@code series} (oldest first) this strategy counts; empty for none. */
  public Optional<Double> of(List<MetricPoint> series) {
    if (series.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(switch (this) {
      case LATEST -> series.get(series.size() - 1).value();
      case MAX -> series.stream().mapToDouble(MetricPoint::value).max().orElseThrow();
      case MIN -> series.stream().mapToDouble(MetricPoint::value).min().orElseThrow();
    });
  }
}

package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.MetricPoint;
import dev.fairing4j.core.internal.Validators;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a search optimizes: a metric the trials log ({@code accuracy=0.91}; an experiment reads
 * it through its {@link MetricsCollector}, as Katib does), whether higher or lower is better,
 * which of a trial's values counts, and optionally a goal that ends the search once a trial
 * reaches it.
 *
 * @param metric the metric's name, as the script prints it
 * @param direction maximize or minimize
 * @param strategy which logged value counts; by default, as Katib's, the best one
 * @param goal the value that ends the search when a trial reaches it
 */
public record Objective(String metric, Direction direction, MetricStrategy strategy,
    Optional<Double> goal) {
  // Katib's StdOut collector reads names of word characters, '|' and '-'.
  private static final Pattern METRIC = Pattern.compile("[\\w|-]+");

  /** Higher or lower is better. */
  public enum Direction {
    /** Higher is better. */
    MAXIMIZE,
    /** Lower is better. */
    MINIMIZE;

    /** Whether {@code a} is better than {@code b}. */
    public boolean better(double a, double b) {
      return this == MAXIMIZE ? a > b : a < b;
    }
  }

  /** Checks the metric name. */
  public Objective {
    Validators.requireText("objective metric", metric);
    if (!METRIC.matcher(metric).matches()) {
      throw InvalidInputException.of("objective metric", "'" + metric + "' is not a metric name"
          + " a trial can print", "use letters, digits, '_' and '-', as in accuracy=0.91");
    }
    Objects.requireNonNull(direction, "direction");
    Objects.requireNonNull(strategy, "strategy");
    Objects.requireNonNull(goal, "goal");
    goal.filter(g -> !Double.isFinite(g)).ifPresent(g -> {
      throw InvalidInputException.of("objective goal", g + " is not a finite number",
          "give the value to stop at, e.g. 0.95");
    });
  }

  /** Higher {@code metric} is better; a trial counts its highest value. */
  public static Objective maximize(String metric) {
    return new Objective(metric, Direction.MAXIMIZE, MetricStrategy.MAX, Optional.empty());
  }

  /** Lower {@code metric} is better; a trial counts its lowest value. */
  public static Objective minimize(String metric) {
    return new Objective(metric, Direction.MINIMIZE, MetricStrategy.MIN, Optional.empty());
  }

  /** The same objective, ending the search once a trial reaches {@code value}. */
  public Objective goal(double value) {
    return new Objective(metric, direction, strategy, Optional.of(value));
  }

  /** The same objective, counting a trial's {@code newStrategy} value (e.g. the last one). */
  public Objective strategy(MetricStrategy newStrategy) {
    return new Objective(metric, direction, newStrategy, goal);
  }

  /**
   * A job's value of this objective from {@code metrics} (what {@code job.metrics()} parses): the
   * metric as the lead replica logged it (the first replica, lead first, that logged it at all),
   * by this objective's strategy; empty when no replica logged it. For jobs of your own; an
   * experiment reads its trials through its {@link MetricsCollector}'s filters instead, with
   * Katib's rules, which may find other values (Katib's default filter reads the {@code loss=}
   * of {@code test loss=0.4} as {@code loss}).
   */
  public Optional<Double> valueOf(JobMetrics metrics) {
    return strategy.of(seriesOf(metrics));
  }

  /**
   * The metric's values in {@code metrics} as the lead replica logged them (the first replica,
   * lead first, that logged it at all); empty when no replica logged it. As {@link #valueOf},
   * what {@code job.metrics()} parsed, not what an experiment's collector reads.
   */
  public List<MetricPoint> seriesOf(JobMetrics metrics) {
    for (String replica : metrics.replicas()) {
      List<MetricPoint> series = metrics.series(replica, metric);
      if (!series.isEmpty()) {
        return series;
      }
    }
    return List.of();
  }

  /** Whether {@code value} reaches the goal. */
  public boolean reached(double value) {
    return goal.filter(g -> direction == Direction.MAXIMIZE ? value >= g : value <= g)
        .isPresent();
  }
}

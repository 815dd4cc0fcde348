package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.ChartRenderer;
import dev.fairing4j.core.internal.KernelBridge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An experiment's trials drawn: the objective of each trial in order with the best so far
 * ({@link ExperimentResults#plot()}), or the objective against each parameter
 * ({@link ExperimentResults#parameterPlot()}). A notebook cell ending with one shows the image;
 * {@link #save(Path)} writes a PNG or SVG file. Only trials with an objective value are drawn.
 */
public final class TrialPlot implements Displayable {
  private static final int WIDTH = 800;
  private static final int PANEL_HEIGHT = 260;

  private final ChartRenderer.Chart chart;
  private final String description;

  private TrialPlot(ChartRenderer.Chart chart, String description) {
    KernelBridge.install();  // the first displayable value registers the renderer
    this.chart = chart;
    this.description = description;
  }

  /** The objective per trial, and the best value so far. */
  static TrialPlot perTrial(ExperimentResults results) {
    List<Trial> scored = scored(results);
    String metric = results.objective().metric();
    double[] x = new double[scored.size()];
    double[] y = new double[scored.size()];
    double[] best = new double[scored.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = scored.get(i).number();
      y[i] = scored.get(i).objective().orElseThrow();
      best[i] = i == 0 || results.objective().direction().better(y[i], best[i - 1]) ? y[i]
          : best[i - 1];
    }
    ChartRenderer.Panel panel = new ChartRenderer.Panel(metric, List.of(
        new ChartRenderer.Series("trial", x, y), new ChartRenderer.Series("best so far", x,
            best)));
    return new TrialPlot(new ChartRenderer.Chart(results.name() + ": " + metric + " per trial",
        "trial", WIDTH, PANEL_HEIGHT, List.of(panel)), metric + " of " + scored.size()
            + " trials of " + results.name());
  }

  /**
   * The objective against each parameter, a panel each. The x axis is the value's place between
   * the lowest and the highest value the trials tried (0 and 1), on a log scale when those span
   * a factor of 10 or more; a choice's values are spaced evenly in the order first tried.
   */
  static TrialPlot perParameter(ExperimentResults results) {
    List<Trial> scored = scored(results);
    String metric = results.objective().metric();
    List<ChartRenderer.Panel> panels = new ArrayList<>();
    List<String> names = scored.get(0).parameters().keySet().stream().toList();
    for (String parameter : names) {
      List<String> values = scored.stream().map(t -> t.parameters().get(parameter)).toList();
      List<double[]> points = new ArrayList<>();
      Map<String, Double> positions = positions(values);
      for (Trial trial : scored) {
        points.add(new double[] {positions.get(trial.parameters().get(parameter)),
            trial.objective().orElseThrow()});
      }
      points.sort(Comparator.<double[]>comparingDouble(p -> p[0])
          .thenComparingDouble(p -> p[1]));
      double[] x = points.stream().mapToDouble(p -> p[0]).toArray();
      double[] y = points.stream().mapToDouble(p -> p[1]).toArray();
      panels.add(new ChartRenderer.Panel(metric + " by " + parameter + " " + range(values),
          List.of(new ChartRenderer.Series(parameter, x, y))));
    }
    return new TrialPlot(new ChartRenderer.Chart(results.name() + ": " + metric
        + " against each parameter", "place in the values tried (0 lowest, 1 highest; log"
        + " scale where they span 10x)", WIDTH, PANEL_HEIGHT, panels), metric + " against "
        + String.join(", ", names) + " over " + scored.size() + " trials of " + results.name());
  }

  private static List<Trial> scored(ExperimentResults results) {
    List<Trial> scored = results.trials().stream().filter(t -> t.objective().isPresent())
        .toList();
    if (scored.isEmpty()) {
      throw FairingException.of("draw an experiment plot", results.name(), "no trial has "
          + results.objective().metric() + " yet", "plot once a trial has succeeded"
          + " (results() shows each trial)", null);
    }
    return scored;
  }

  // Each value's place in [0, 1]: numbers by value (log where they span 10x), others in order.
  private static Map<String, Double> positions(List<String> values) {
    Map<String, Double> positions = new LinkedHashMap<>();
    List<Double> numbers = new ArrayList<>();
    for (String value : values) {
      try {
        numbers.add(Double.parseDouble(value));
      } catch (NumberFormatException e) {
        List<String> distinct = values.stream().distinct().toList();
        for (int i = 0; i < distinct.size(); i++) {
          positions.put(distinct.get(i), distinct.size() == 1 ? 0.5
              : (double) i / (distinct.size() - 1));
        }
        return positions;
      }
    }
    double min = numbers.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double max = numbers.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    boolean log = min > 0 && max / min >= 10;
    for (int i = 0; i < values.size(); i++) {
      double v = numbers.get(i);
      double place = max == min ? 0.5 : log ? Math.log(v / min) / Math.log(max / min)
          : (v - min) / (max - min);
      positions.put(values.get(i), place);
    }
    return positions;
  }

  private static String range(List<String> values) {
    List<String> distinct = values.stream().distinct().toList();
    try {
      double min = distinct.stream().mapToDouble(Double::parseDouble).min().orElseThrow();
      double max = distinct.stream().mapToDouble(Double::parseDouble).max().orElseThrow();
      return "(" + TrialPlan.render(min) + " to " + TrialPlan.render(max) + ")";
    } catch (NumberFormatException e) {
      return "(" + String.join(", ", distinct) + ")";
    }
  }

  /** What is drawn: the panels and their series. */
  ChartRenderer.Chart chart() {
    return chart;
  }

  /** The plot as PNG bytes. */
  public byte[] png() {
    return ChartRenderer.find().render(chart, ChartRenderer.Format.PNG);
  }

  /** The plot as an SVG document. */
  public String svg() {
    return new String(ChartRenderer.find().render(chart, ChartRenderer.Format.SVG),
        StandardCharsets.UTF_8);
  }

  /**
   * Writes the plot to {@code file}, as PNG or SVG by its extension, creating its directory;
   * returns the file.
   *
   * @throws InvalidInputException when the extension is neither {@code .png} nor {@code .svg}
   */
  public Path save(Path file) {
    return ChartRenderer.save(() -> chart, file, "trials");
  }

  /** What is drawn, in words. */
  @Override
  public String toText() {
    return "plot of " + description;
  }

  /** An {@code <img>} with the PNG inline. */
  @Override
  public String toHtml() {
    return ChartRenderer.inlineImage(toText(), png());
  }

  /** {@code text/plain} and {@code image/png}: a notebook shows the image. */
  @Override
  public Map<String, String> mimeBundle() {
    return ChartRenderer.mimeBundle(toText(), png());
  }

  @Override
  public String toString() {
    return toText();
  }
}

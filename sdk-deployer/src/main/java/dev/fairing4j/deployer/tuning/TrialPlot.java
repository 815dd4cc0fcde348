package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.internal.ChartRenderer;
import dev.fairing4j.core.internal.KernelBridge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
   * The objective against each parameter, a panel each, a point per trial at the value it
   * tried: numbers on their own axis (logarithmic when the values tried span a factor of 10 or
   * more, as a log-uniform search draws them), values that are no numbers (a choice) side by
   * side in the order first tried.
   */
  static TrialPlot perParameter(ExperimentResults results) {
    List<Trial> scored = scored(results);
    String metric = results.objective().metric();
    List<ChartRenderer.Panel> panels = new ArrayList<>();
    List<String> names = scored.get(0).parameters().keySet().stream().toList();
    for (String parameter : names) {
      List<String> values = scored.stream().map(t -> t.parameters().get(parameter)).toList();
      Optional<double[]> numbers = numbers(values);
      List<String> categories = numbers.isPresent() ? List.of()
          : values.stream().distinct().toList();
      double[] x = new double[scored.size()];
      double[] y = new double[scored.size()];
      for (int i = 0; i < scored.size(); i++) {
        x[i] = numbers.isPresent() ? numbers.get()[i]
            : categories.indexOf(values.get(i));
        y[i] = scored.get(i).objective().orElseThrow();
      }
      boolean log = numbers.map(TrialPlot::spansTenfold).orElse(false);
      panels.add(new ChartRenderer.Panel(metric + " by " + parameter, metric,
          List.of(new ChartRenderer.Series(parameter, x, y)), Optional.of(new ChartRenderer.Axis(
              parameter + (log ? " (log scale)" : ""), log, categories))));
    }
    return new TrialPlot(new ChartRenderer.Chart(results.name() + ": " + metric
        + " against each parameter", "", WIDTH, PANEL_HEIGHT, panels), metric + " against "
        + String.join(", ", names) + " over " + scored.size() + " trials of " + results.name());
  }

  /** The values as numbers, when every one is a number. */
  private static Optional<double[]> numbers(List<String> values) {
    double[] numbers = new double[values.size()];
    for (int i = 0; i < numbers.length; i++) {
      try {
        numbers[i] = Double.parseDouble(values.get(i));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
    return Optional.of(numbers);
  }

  private static boolean spansTenfold(double[] numbers) {
    double min = java.util.Arrays.stream(numbers).min().orElse(0);
    double max = java.util.Arrays.stream(numbers).max().orElse(0);
    return min > 0 && max / min >= 10;
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
   * @throws dev.fairing4j.core.InvalidInputException when the extension is neither {@code .png}
   *     nor {@code .svg}
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

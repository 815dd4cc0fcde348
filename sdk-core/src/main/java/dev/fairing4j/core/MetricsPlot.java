package dev.fairing4j.core;

import dev.fairing4j.core.internal.ChartRenderer;
import dev.fairing4j.core.internal.KernelBridge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Curves of a job's metrics: one panel per metric (loss, accuracy, ...), a line per replica,
 * over the time since the first value; an immutable value from {@link JobMetrics#plot()}. In a
 * notebook it shows as a PNG; {@link #save} writes a PNG or SVG file.
 *
 * <pre>{@code
 * job.metrics().plot()                                         // in a notebook cell
 * job.metrics().plot().metrics("loss").save(Path.of("loss.svg"))
 * }</pre>
 * Drawn with XChart, which sdk-deployer brings.
 */
public final class MetricsPlot implements Displayable {
  private static final int DEFAULT_WIDTH = 800;
  private static final int DEFAULT_PANEL_HEIGHT = 260;
  private static final Duration MINUTES_FROM = Duration.ofMinutes(5);

  private final JobMetrics metrics;
  private final List<String> names;
  private final int width;
  private final int panelHeight;

  private MetricsPlot(JobMetrics metrics, List<String> names, int width, int panelHeight) {
    KernelBridge.install();  // the first displayable value registers the renderer
    this.metrics = metrics;
    this.names = List.copyOf(names);
    this.width = width;
    this.panelHeight = panelHeight;
  }

  static MetricsPlot of(JobMetrics metrics) {
    List<String> names = new ArrayList<>(metrics.names());
    names.remove(MetricParser.EPOCH);
    names.remove(MetricParser.PROGRESS);
    return new MetricsPlot(metrics, names, DEFAULT_WIDTH, DEFAULT_PANEL_HEIGHT);
  }

  /**
   * Only these metrics, in this order, a panel each.
   *
   * @throws InvalidInputException for a name no replica logged, listing the ones there are
   */
  public MetricsPlot metrics(String... metricNames) {
    if (metricNames.length == 0) {
      throw InvalidInputException.of("metrics", "names no metric",
          "name at least one of " + metrics.names());
    }
    for (String name : metricNames) {
      if (!metrics.names().contains(name)) {
        throw InvalidInputException.of("metrics", "'" + name + "' was not logged by "
            + metrics.job(), "use one of " + metrics.names());
      }
    }
    return new MetricsPlot(metrics, List.of(metricNames), width, panelHeight);
  }

  /**
   * The size in pixels: {@code width}, and {@code panelHeight} per metric.
   *
   * @throws InvalidInputException for sizes under 200 x 120 or over 4000 x 2000
   */
  public MetricsPlot size(int newWidth, int newPanelHeight) {
    if (newWidth < 200 || newWidth > 4000) {
      throw InvalidInputException.of("width", newWidth + " pixels is out of range",
          "use 200 to 4000");
    }
    if (newPanelHeight < 120 || newPanelHeight > 2000) {
      throw InvalidInputException.of("panelHeight", newPanelHeight + " pixels is out of range",
          "use 120 to 2000");
    }
    return new MetricsPlot(metrics, names, newWidth, newPanelHeight);
  }

  /** The metrics drawn, a panel each. */
  public List<String> metrics() {
    return names;
  }

  /**
   * The plot as a PNG image.
   *
   * @throws FairingException when there is nothing to draw yet, or no renderer (sdk-deployer) is
   *     on the class path
   */
  public byte[] png() {
    return ChartRenderer.find().render(chart(), ChartRenderer.Format.PNG);
  }

  /** The plot as an SVG document. */
  public String svg() {
    return new String(ChartRenderer.find().render(chart(), ChartRenderer.Format.SVG),
        StandardCharsets.UTF_8);
  }

  /**
   * Writes the plot to {@code file}, as PNG or SVG by its extension, creating its directory;
   * returns the file.
   *
   * @throws InvalidInputException when the extension is neither {@code .png} nor {@code .svg},
   *     or the file is a directory (before anything is drawn)
   */
  public Path save(Path file) {
    return ChartRenderer.save(this::chart, file, "loss");
  }

  private ChartRenderer.Chart chart() {
    Optional<Instant> start = names.stream()
        .flatMap(name -> metrics.replicas().stream().flatMap(r -> metrics.series(r, name)
            .stream()))
        .map(MetricPoint::time).min(Instant::compareTo);
    if (start.isEmpty()) {
      throw FairingException.of("draw a metrics plot", "no metrics in the logs of "
          + metrics.job() + " yet", "plot once the job has logged loss=... or accuracy=..."
          + " lines (job.metrics() shows what was found)");
    }
    Instant end = names.stream()
        .flatMap(name -> metrics.replicas().stream().flatMap(r -> metrics.series(r, name)
            .stream()))
        .map(MetricPoint::time).max(Instant::compareTo).orElseThrow();
    boolean minutes = Duration.between(start.get(), end).compareTo(MINUTES_FROM) > 0;
    double unit = minutes ? 60_000.0 : 1_000.0;
    List<ChartRenderer.Panel> panels = new ArrayList<>();
    for (String name : names) {
      List<ChartRenderer.Series> lines = new ArrayList<>();
      for (String replica : metrics.replicas()) {
        List<MetricPoint> points = metrics.series(replica, name);
        if (points.isEmpty()) {
          continue;
        }
        double[] x = new double[points.size()];
        double[] y = new double[points.size()];
        for (int i = 0; i < x.length; i++) {
          x[i] = Duration.between(start.get(), points.get(i).time()).toMillis() / unit;
          y[i] = points.get(i).value();
        }
        lines.add(new ChartRenderer.Series(replica, x, y));
      }
      panels.add(new ChartRenderer.Panel(name, lines));
    }
    return new ChartRenderer.Chart(metrics.job(), (minutes ? "minutes" : "seconds")
        + " since the first value", width, panelHeight, panels);
  }

  /** What is drawn, in words. */
  @Override
  public String toText() {
    return "plot of " + String.join(", ", names) + " for " + metrics.job() + " ("
        + String.join(", ", metrics.replicas()) + ")";
  }

  /** An {@code <img>} with the PNG inline. */
  @Override
  public String toHtml() {
    return ChartRenderer.inlineImage(toText(), png());
  }

  /**
   * {@code text/plain} and {@code image/png}: a notebook shows the image; without metrics yet,
   * the text says so.
   */
  @Override
  public Map<String, String> mimeBundle() {
    if (metrics.isEmpty() || names.isEmpty()) {
      Map<String, String> bundle = new LinkedHashMap<>();
      bundle.put("text/plain", "nothing to plot: " + metrics.toText());
      return bundle;
    }
    return ChartRenderer.mimeBundle(toText(), png());
  }

  @Override
  public String toString() {
    return toText();
  }
}

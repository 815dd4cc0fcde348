package dev.fairing4j.core.internal;

import dev.fairing4j.core.FairingException;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Draws charts for {@code MetricsPlot}. sdk-core has no drawing library (it keeps I/O-heavy
 * dependencies out); sdk-deployer provides one with XChart through {@code META-INF/services},
 * found with the loader that loaded the SDK (in a notebook kernel, the one holding every jar a
 * {@code %dependency} added).
 */
public interface ChartRenderer {
  /** PNG or SVG. */
  enum Format {
    /** A PNG image. */
    PNG,
    /** An SVG document (UTF-8). */
    SVG
  }

  /** The chart in {@code format}. */
  byte[] render(Chart chart, Format format);

  /**
   * Panels stacked top to bottom, sharing an x axis.
   *
   * @param title above the first panel
   * @param xLabel under the last panel
   * @param width pixels
   * @param panelHeight pixels per panel
   * @param panels one per metric
   */
  record Chart(String title, String xLabel, int width, int panelHeight, List<Panel> panels) {
    /** Copies the panels. */
    public Chart {
      Objects.requireNonNull(title, "title");
      panels = List.copyOf(panels);
    }
  }

  /** One metric: a line per replica. */
  record Panel(String title, List<Series> series) {
    /** Copies the series. */
    public Panel {
      series = List.copyOf(series);
    }
  }

  /** One line: x and y of equal length. */
  record Series(String name, double[] x, double[] y) {}

  /**
   * The renderer on the class path.
   *
   * @throws FairingException naming the module to add when none is there
   */
  static ChartRenderer find() {
    for (ClassLoader loader : new ClassLoader[] {ChartRenderer.class.getClassLoader(),
        Thread.currentThread().getContextClassLoader()}) {
      if (loader == null) {
        continue;
      }
      for (ChartRenderer renderer : ServiceLoader.load(ChartRenderer.class, loader)) {
        return renderer;
      }
    }
    throw FairingException.of("draw a metrics plot", "no chart renderer is on the class path",
        "add dev.fairing4j:sdk-deployer (it draws with XChart), which every cluster comes from");
  }
}

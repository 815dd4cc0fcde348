package dev.fairing4j.deployer.monitor.internal;

import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.internal.ChartRenderer;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws {@code MetricsPlot}s with XChart: one line chart per metric, a series per replica,
 * stacked on one canvas (a PNG image, or an SVG document through VectorGraphics2D). Found by
 * sdk-core through {@code META-INF/services}; runs headless.
 */
public final class XChartRenderer implements ChartRenderer {
  // Replicas keep their colour across panels: master blue, workers after it.
  private static final Color[] COLOURS = {new Color(0x1f77b4), new Color(0xff7f0e),
      new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b),
      new Color(0xe377c2), new Color(0x7f7f7f)};
  private static final int TITLE_HEIGHT = 28;

  /** For the service loader. */
  public XChartRenderer() {
    // AWT must not look for a display: a notebook kernel or CI machine has none.
    System.setProperty("java.awt.headless", "true");
  }

  @Override
  public byte[] render(Chart chart, Format format) {
    int height = TITLE_HEIGHT + chart.panels().size() * chart.panelHeight();
    try {
      if (format == Format.PNG) {
        BufferedImage image = new BufferedImage(chart.width(), height,
            BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = image.createGraphics();
        paint(graphics, chart, height);
        graphics.dispose();
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        ImageIO.write(image, "png", png);
        return png.toByteArray();
      }
      VectorGraphics2D graphics = new VectorGraphics2D();
      paint(graphics, chart, height);
      ByteArrayOutputStream svg = new ByteArrayOutputStream();
      new SVGProcessor().getDocument(graphics.getCommands(),
          new PageSize(0, 0, chart.width(), height)).writeTo(svg);
      return svg.toByteArray();
    } catch (IOException | RuntimeException e) {
      throw FairingException.of("draw a metrics plot", chart.title(), e.toString(),
          "a headless JVM needs a font: apt-get install fonts-dejavu-core", e);
    }
  }

  private static void paint(Graphics2D graphics, Chart chart, int height) {
    graphics.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    graphics.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING,
        RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    graphics.setColor(Color.WHITE);
    graphics.fillRect(0, 0, chart.width(), height);
    graphics.setColor(Color.DARK_GRAY);
    graphics.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    graphics.drawString(chart.title(), 12, 20);
    List<Panel> panels = chart.panels();
    List<String> replicas = panels.stream().flatMap(p -> p.series().stream())
        .map(Series::name).distinct().toList();
    // One time axis for all panels, so a value sits under the loss it follows.
    double xMax = niceCeiling(panels.stream().flatMap(p -> p.series().stream())
        .flatMapToDouble(s -> java.util.Arrays.stream(s.x())).max().orElse(1));
    for (int i = 0; i < panels.size(); i++) {
      Panel drawn = panels.get(i);
      XYChart panel = panel(drawn, chart, i == panels.size() - 1, replicas);
      if (drawn.xAxis().isPresent()) {
        ownAxis(panel, drawn, drawn.xAxis().get());
      } else {
        panel.getStyler().setXAxisMin(0.0);
        panel.getStyler().setXAxisMax(xMax);
      }
      // A short series (one value, or values close together) would otherwise get an axis from
      // its own points, ticks at the data (0 and 94.812) and dots on the frame's edge.
      double[] y = yRange(panels.get(i));
      panel.getStyler().setYAxisMin(y[0]);
      panel.getStyler().setYAxisMax(y[1]);
      Graphics2D area = (Graphics2D) graphics.create(0, TITLE_HEIGHT + i * chart.panelHeight(),
          chart.width(), chart.panelHeight());
      panel.paint(area, chart.width(), chart.panelHeight());
      area.dispose();
    }
  }

  /**
   * A panel's own x axis: the values drawn as they are (on a log scale when asked), a margin
   * beside the outermost points so none sits on the frame, or the names of values that are no
   * numbers under 0, 1, 2, ...
   */
  private static void ownAxis(XYChart panel, Panel drawn, Axis axis) {
    var styler = panel.getStyler();
    panel.setXAxisTitle(axis.title());
    double min = drawn.series().stream().flatMapToDouble(s -> java.util.Arrays.stream(s.x()))
        .min().orElse(0);
    double max = drawn.series().stream().flatMapToDouble(s -> java.util.Arrays.stream(s.x()))
        .max().orElse(1);
    if (!axis.categories().isEmpty()) {
      List<String> names = axis.categories();
      styler.setXAxisMin(-0.5);
      styler.setXAxisMax(names.size() - 0.5);
      styler.setXAxisTickMarkSpacingHint(Math.max(20, panel.getWidth() / (names.size() + 2)));
      double end = names.size() - 0.5;
      panel.setCustomXAxisTickLabelsFormatter(x -> {
        long index = Math.round(x);
        if (Math.abs(x - index) < 1e-6 && index >= 0 && index < names.size()) {
          return names.get((int) index);
        }
        // No label between the names. XChart (4.0.3) draws no ticks at all when the labels of
        // the axis' two ends are the same or blank: the ends get two different invisible ones.
        return x >= end - 1e-9 ? "\u00A0\u00A0" : "\u00A0";
      });
    } else if (axis.logarithmic() && min > 0) {
      styler.setXAxisLogarithmic(true);
      styler.setXAxisMin(min / Math.pow(max / min, 0.05));
      styler.setXAxisMax(max * Math.pow(max / min, 0.05));
    } else {
      double margin = max > min ? (max - min) / 20 : Math.max(Math.abs(max) / 10, 1e-9);
      styler.setXAxisMin(min - margin);
      styler.setXAxisMax(max + margin);
    }
    // One series, named on the axis: no legend, so every panel's frame has the same width.
    styler.setLegendVisible(false);
    for (XYSeries series : panel.getSeriesCollection()) {
      series.setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter);
      series.setMarker(SeriesMarkers.CIRCLE);
    }
  }

  /** {@code value} rounded up to 1, 2, 2.5 or 5 times a power of ten; at least 1. */
  static double niceCeiling(double value) {
    if (!(value > 1)) {
      return 1;
    }
    double power = Math.pow(10, Math.floor(Math.log10(value)));
    for (double step : new double[] {1, 2, 2.5, 5, 10}) {
      if (step * power >= value - 1e-9 * power) {
        return step * power;
      }
    }
    return 10 * power;
  }

  /**
   * The y axis of a panel: its values with a margin of a tenth of their spread on each side, or,
   * when they are (nearly) one value, a tenth of that value (1 around zero), so every dot sits
   * inside the frame.
   */
  static double[] yRange(Panel panel) {
    double min = panel.series().stream().flatMapToDouble(s -> java.util.Arrays.stream(s.y()))
        .min().orElse(0);
    double max = panel.series().stream().flatMapToDouble(s -> java.util.Arrays.stream(s.y()))
        .max().orElse(1);
    double spread = max - min;
    double margin = spread > 1e-12 * Math.max(1, Math.abs(max)) ? spread / 10
        : Math.abs(max) > 1e-12 ? Math.abs(max) / 10 : 1;
    return new double[] {min - margin, max + margin};
  }

  private static XYChart panel(Panel panel, Chart chart, boolean last, List<String> replicas) {
    XYChart xy = new XYChart(chart.width(), chart.panelHeight());
    xy.setTitle(panel.title());
    xy.setXAxisTitle(last ? chart.xLabel() : "");
    xy.setYAxisTitle(panel.yLabel());
    var styler = xy.getStyler();
    styler.setChartBackgroundColor(Color.WHITE);
    styler.setPlotBackgroundColor(Color.WHITE);
    styler.setPlotGridLinesColor(new Color(0xdddddd));
    styler.setChartTitleBoxVisible(false);
    styler.setLegendPosition(Styler.LegendPosition.OutsideE);
    styler.setLegendBorderColor(Color.WHITE);
    styler.setChartPadding(6);
    styler.setDecimalPattern("#0.###");
    for (Series series : panel.series()) {
      XYSeries line = xy.addSeries(series.name(), series.x(), series.y());
      Color color = COLOURS[replicas.indexOf(series.name()) % COLOURS.length];
      line.setLineColor(color);
      line.setMarkerColor(color);
      line.setLineStyle(new BasicStroke(1.6f));
      // A metric logged once (accuracy at the end) still shows as a dot.
      line.setMarker(series.x().length <= 20 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
    }
    return xy;
  }

  @Override
  public String toString() {
    return "XChartRenderer";
  }
}

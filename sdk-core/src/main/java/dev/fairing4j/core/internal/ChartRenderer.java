package dev.fairing4j.core.internal;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Supplier;

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

  /**
   * One metric: a line per replica, on the chart's shared x axis; or, with an {@link Axis} of its
   * own, points (no lines) against that axis, as an experiment's parameters are drawn.
   *
   * @param title above the panel
   * @param yLabel beside the y axis: the metric, short enough to fit
   * @param series what is drawn
   * @param xAxis the panel's own x axis; empty to share the chart's
   */
  record Panel(String title, String yLabel, List<Series> series, Optional<Axis> xAxis) {
    /** Copies the series. */
    public Panel {
      Objects.requireNonNull(title, "title");
      Objects.requireNonNull(yLabel, "yLabel");
      series = List.copyOf(series);
      Objects.requireNonNull(xAxis, "xAxis");
    }

    /** A panel of lines on the chart's x axis, its title beside the y axis too. */
    public Panel(String title, List<Series> series) {
      this(title, title, series, Optional.empty());
    }
  }

  /**
   * A panel's own x axis: its title, whether it is logarithmic, and for values that are no
   * numbers the names drawn at 0, 1, 2, ...
   */
  record Axis(String title, boolean logarithmic, List<String> categories) {
    /** Copies the names. */
    public Axis {
      Objects.requireNonNull(title, "title");
      categories = List.copyOf(categories);
    }
  }

  /** One line: x and y of equal length. */
  record Series(String name, double[] x, double[] y) {}

  /**
   * Draws the chart {@code chart} makes to {@code file}, as PNG or SVG by its extension,
   * creating its directory; returns the file. What both plots' {@code save(..)} do.
   *
   * @throws InvalidInputException when the extension is neither {@code .png} nor {@code .svg},
   *     or the file is a directory, before anything is drawn
   */
  static Path save(Supplier<Chart> chart, Path file, String exampleStem) {
    Objects.requireNonNull(file, "file");
    String name = file.getFileName() == null ? "" : file.getFileName().toString()
        .toLowerCase(Locale.ROOT);
    Format format;
    if (name.endsWith(".png")) {
      format = Format.PNG;
    } else if (name.endsWith(".svg")) {
      format = Format.SVG;
    } else {
      throw InvalidInputException.of("file", file + " is neither .png nor .svg",
          "name the file " + exampleStem + ".png or " + exampleStem + ".svg");
    }
    if (Files.isDirectory(file)) {
      throw InvalidInputException.of("file", file + " is a directory",
          "name a file in it, e.g. " + file.resolve(exampleStem + ".png"));
    }
    Chart drawn = chart.get();
    byte[] bytes = find().render(drawn, format);
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.write(file, bytes);
    } catch (IOException e) {
      throw FairingException.of("save " + drawn.title(), file.toString(), e.getMessage(),
          "check that the directory is writable", e);
    }
    return file;
  }

  /** An {@code <img>} with {@code png} inline and {@code text} as its alt text. */
  static String inlineImage(String text, byte[] png) {
    return "<img alt=\"" + TextTable.escape(text) + "\" src=\"data:image/png;base64,"
        + Base64.getEncoder().encodeToString(png) + "\"/>";
  }

  /** {@code text/plain} and {@code image/png}: what a notebook shows a plot by. */
  static Map<String, String> mimeBundle(String text, byte[] png) {
    Map<String, String> bundle = new LinkedHashMap<>();
    bundle.put("text/plain", text);
    bundle.put("image/png", Base64.getEncoder().encodeToString(png));
    return bundle;
  }

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

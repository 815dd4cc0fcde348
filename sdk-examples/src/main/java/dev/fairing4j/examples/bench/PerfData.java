package dev.fairing4j.examples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What a JVM's class loading cost it, from the HotSpot performance counters it saves when it
 * exits ({@code -XX:+PerfDataSaveToFile}), read back with the JDK's {@code jstat}: how many
 * classes it loaded (from the CDS archive and otherwise) and how long their static initializers
 * ran. For the fresh-JVM figures of the build benchmark: a fresh JVM's build time is mostly
 * class loading and initialization.
 */
final class PerfData {
  private PerfData() {}

  /** The JVM options that make a JVM save its counters to {@code file} when it exits. */
  static List<String> saveTo(Path file) {
    return List.of("-XX:+UsePerfData", "-XX:+PerfDataSaveToFile",
        "-XX:PerfDataSaveFile=" + file);
  }

  /**
   * The figures of a saved counter file.
   *
   * @param classesLoaded classes loaded, CDS-archived ones included
   * @param clinitMillis time spent in static initializers, their own time only
   */
  record Figures(long classesLoaded, double clinitMillis) {}

  /** The median (the upper one of an even count) of {@code figure} over {@code runs}, rounded. */
  static long median(List<Figures> runs, ToDoubleFunction<Figures> figure) {
    return Math.round(runs.stream().mapToDouble(figure).sorted().skip(runs.size() / 2)
        .findFirst().orElse(0));
  }

  /** Reads {@code file}; empty figures (zero) when jstat cannot. */
  static Figures read(Path file) throws IOException, InterruptedException {
    Path jstat = Path.of(System.getProperty("java.home"), "bin", "jstat");
    Process process = new ProcessBuilder(jstat.toString(),
        "-J-Djstat.showUnsupported=true", "-snap", "file://" + file.toAbsolutePath())
        .redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    Map<String, Long> counters = new HashMap<>();
    for (String line : out.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        try {
          counters.put(line.substring(0, eq).trim(), Long.parseLong(line.substring(eq + 1)
              .trim()));
        } catch (NumberFormatException e) {
          // a string counter
        }
      }
    }
    Files.deleteIfExists(file);
    long frequency = counters.getOrDefault("sun.os.hrt.frequency", 1_000_000_000L);
    return new Figures(counters.getOrDefault("java.cls.loadedClasses", 0L)
        + counters.getOrDefault("java.cls.sharedLoadedClasses", 0L),
        counters.getOrDefault("sun.cls.classInitTime.self", 0L) * 1000.0 / frequency);
  }
}

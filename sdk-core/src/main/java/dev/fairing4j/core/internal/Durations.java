package dev.fairing4j.core.internal;

import java.time.Duration;

/** Durations as a user reads them in a message, not ISO-8601's {@code PT2M5S}. */
public final class Durations {
  private Durations() {}

  /** {@code 150 ms}, {@code 3 s}, {@code 2 min 5 s}, {@code 1 h 30 min}. */
  public static String human(Duration d) {
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      return d.toMillis() + " ms";
    }
    long h = d.toHours();
    long m = d.toMinutesPart();
    long s = d.toSecondsPart();
    StringBuilder text = new StringBuilder();
    if (h > 0) {
      text.append(h).append(" h");
    }
    if (m > 0) {
      text.append(text.length() > 0 ? " " : "").append(m).append(" min");
    }
    if (s > 0 && h == 0) {
      text.append(text.length() > 0 ? " " : "").append(s).append(" s");
    }
    return text.toString();
  }
}

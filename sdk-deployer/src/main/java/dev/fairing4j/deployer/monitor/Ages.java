package dev.fairing4j.deployer.monitor;

import java.time.Duration;

/** Durations the way kubectl prints ages: one or two units, largest first. */
final class Ages {
  private Ages() {}

  static String format(Duration age) {
    long s = Math.max(0, age.toSeconds());
    if (s < 120) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m";
    }
    if (s < 2 * 86400) {
      return (s / 3600) + "h" + (s % 3600 / 60 == 0 ? "" : (s % 3600 / 60) + "m");
    }
    return (s / 86400) + "d";
  }
}

package dev.fairing4j.core.internal;

import java.util.Locale;

/** Byte counts as a user reads them in a table or a progress line: 512 B, 3.4 MiB, 1.2 GiB. */
public final class Sizes {
  private Sizes() {}

  /** {@code bytes} in binary units, one decimal. */
  public static String human(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }
}

package dev.fairing4j.deployer.internal;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes resource quantities as numbers, so {@code 1Gi}, {@code 1024Mi} and
 * {@code 1073741824} compare equal: the API server stores quantities in its own canonical
 * spelling, so comparing text would call an unchanged object different.
 */
public final class Quantities {
  private static final Pattern QUANTITY = Pattern.compile(
      "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?");
  private static final Map<String, BigDecimal> SUFFIXES = Map.ofEntries(
      Map.entry("", BigDecimal.ONE),
      Map.entry("n", new BigDecimal("1e-9")), Map.entry("u", new BigDecimal("1e-6")),
      Map.entry("m", new BigDecimal("1e-3")), Map.entry("k", new BigDecimal("1e3")),
      Map.entry("M", new BigDecimal("1e6")), Map.entry("G", new BigDecimal("1e9")),
      Map.entry("T", new BigDecimal("1e12")), Map.entry("P", new BigDecimal("1e15")),
      Map.entry("E", new BigDecimal("1e18")), Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
      Map.entry("Mi", BigDecimal.valueOf(1L << 20)), Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
      Map.entry("Ti", BigDecimal.valueOf(1L << 40)), Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
      Map.entry("Ei", BigDecimal.valueOf(1L << 60)));

  private Quantities() {}

  /** The value of {@code quantity}; empty when it is not a quantity. */
  public static Optional<BigDecimal> value(String quantity) {
    if (quantity == null) {
      return Optional.empty();
    }
    Matcher matcher = QUANTITY.matcher(quantity.trim());
    if (!matcher.matches()) {
      return Optional.empty();
    }
    BigDecimal number = new BigDecimal(matcher.group(1));
    String suffix = matcher.group(2) == null ? "" : matcher.group(2);
    if (suffix.startsWith("e") || suffix.startsWith("E")) {
      return Optional.of(number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1))));
    }
    return Optional.of(number.multiply(SUFFIXES.get(suffix)));
  }

  /**
   * Compares two quantities by value; text that is not a quantity compares as text, after every
   * quantity.
   */
  public static int compare(String left, String right) {
    Optional<BigDecimal> a = value(left);
    Optional<BigDecimal> b = value(right);
    if (a.isPresent() && b.isPresent()) {
      return a.get().compareTo(b.get());
    }
    if (a.isPresent() != b.isPresent()) {
      return a.isPresent() ? -1 : 1;
    }
    return String.valueOf(left).compareTo(String.valueOf(right));
  }
}

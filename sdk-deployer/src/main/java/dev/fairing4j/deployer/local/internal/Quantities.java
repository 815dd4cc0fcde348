package dev.fairing4j.deployer.local.internal;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads Kubernetes quantities ({@code 500m}, {@code 2}, {@code 4Gi}) as numbers, for the
 * {@code resourceFieldRef}s a manifest may put in its env.
 */
final class Quantities {
  private static final Pattern QUANTITY =
      Pattern.compile("([+-]?[0-9.]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)?");
  private static final Map<String, BigDecimal> SUFFIX = Map.ofEntries(
      Map.entry("m", new BigDecimal("0.001")), Map.entry("k", BigDecimal.TEN.pow(3)),
      Map.entry("M", BigDecimal.TEN.pow(6)), Map.entry("G", BigDecimal.TEN.pow(9)),
      Map.entry("T", BigDecimal.TEN.pow(12)), Map.entry("P", BigDecimal.TEN.pow(15)),
      Map.entry("E", BigDecimal.TEN.pow(18)), Map.entry("Ki", BigDecimal.valueOf(2).pow(10)),
      Map.entry("Mi", BigDecimal.valueOf(2).pow(20)),
      Map.entry("Gi", BigDecimal.valueOf(2).pow(30)),
      Map.entry("Ti", BigDecimal.valueOf(2).pow(40)),
      Map.entry("Pi", BigDecimal.valueOf(2).pow(50)),
      Map.entry("Ei", BigDecimal.valueOf(2).pow(60)));

  private Quantities() {}

  /** The quantity's value in base units (cores, bytes), if it parses. */
  static Optional<BigDecimal> parse(String quantity) {
    if (quantity == null) {
      return Optional.empty();
    }
    Matcher m = QUANTITY.matcher(quantity.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      BigDecimal number = new BigDecimal(m.group(1));
      String suffix = m.group(2);
      if (suffix == null) {
        return Optional.of(number);
      }
      if (suffix.startsWith("e") || suffix.startsWith("E") && suffix.length() > 1
          && !SUFFIX.containsKey(suffix)) {
        return Optional.of(number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1))));
      }
      return Optional.of(number.multiply(SUFFIX.get(suffix)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** {@code value / divisor}, rounded up as the downward API does. */
  static String divideCeil(BigDecimal value, BigDecimal divisor) {
    return value.divide(divisor, 0, RoundingMode.CEILING).toPlainString();
  }
}

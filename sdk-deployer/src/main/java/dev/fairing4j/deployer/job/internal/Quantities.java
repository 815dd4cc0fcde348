package dev.fairing4j.deployer.job.internal;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.custom.QuantityFormatException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kubernetes resource quantities as numbers, read by client-java's {@link Quantity}, so
 * {@code 1Gi}, {@code 1024Mi} and {@code 1073741824} compare equal: the API server stores
 * quantities in its own canonical spelling, so comparing text would call an unchanged object
 * different. The one place the deployer reads quantities (storage sizes, the local cluster's
 * {@code resourceFieldRef}s, a TrainJob's CPUs per node).
 */
public final class Quantities {
  private Quantities() {}

  /** The value of {@code quantity} in base units (cores, bytes); empty when it is not one. */
  public static Optional<BigDecimal> value(String quantity) {
    if (quantity == null || quantity.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Quantity.fromString(quantity.trim()).getNumber());
    } catch (QuantityFormatException | NumberFormatException | ArithmeticException e) {
      return Optional.empty();
    }
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

  /** {@code value / divisor}, rounded up as the downward API does. */
  public static String divideCeil(BigDecimal value, BigDecimal divisor) {
    return value.divide(divisor, 0, RoundingMode.CEILING).toPlainString();
  }

  /** Whole CPUs for a CPU quantity, rounded up ({@code 1500m} is 2); empty when not one. */
  public static Optional<Integer> wholeCpus(String quantity) {
    return value(quantity).map(v -> v.setScale(0, RoundingMode.CEILING).intValue());
  }

  /**
   * GPUs a container asks for: the limits (requests where there are none) of every resource
   * named like a GPU ({@code nvidia.com/gpu}, {@code amd.com/gpu}), summed; 0 when none. The
   * default process count per node follows it, as the Trainer's torch plugin does.
   */
  public static int gpus(Map<String, Object> container) {
    Map<String, Object> resources = Json.child(Json.copyMap(container), "resources");
    for (String section : List.of("limits", "requests")) {
      int sum = 0;
      for (Map.Entry<String, Object> amount : Json.child(resources, section).entrySet()) {
        if (amount.getKey().contains("gpu")) {
          try {
            sum += Integer.parseInt(String.valueOf(amount.getValue()).trim());
          } catch (NumberFormatException notWhole) {
            // GPUs are whole devices; anything else is not a count
          }
        }
      }
      if (sum > 0) {
        return sum;
      }
    }
    return 0;
  }
}

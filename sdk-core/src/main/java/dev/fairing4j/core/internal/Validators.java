package dev.fairing4j.core.internal;

import dev.fairing4j.core.InvalidInputException;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Checks for the names and quantities Kubernetes accepts, each failing with an
 * {@link InvalidInputException} that names the field, quotes the value and says how to fix it. Every
 * check runs before any network call, so a typo costs no build and no request.
 */
public final class Validators {
  /** Longest Kubernetes label value and DNS-1123/1035 label. */
  public static final int MAX_LABEL = 63;
  /** Longest DNS-1123 subdomain (object names such as Secrets and PVCs). */
  public static final int MAX_SUBDOMAIN = 253;

  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  // The pattern the API server (and the Kubeflow CRDs) use for resource.Quantity.
  private static final Pattern QUANTITY = Pattern.compile(
      "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))"
          + "(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$");
  private static final Pattern NUMBER_THEN_SUFFIX = Pattern.compile("^([0-9.]+)\\s*([A-Za-z]+)$");

  private Validators() {}

  /**
   * A DNS-1035 label: lower-case letters, digits and '-', starting with a letter and ending with a
   * letter or digit, at most 63 characters. Kubeflow job and Service names must be one.
   */
  public static String dns1035Label(String field, String value) {
    return label(field, value, MAX_LABEL, DNS1035_LABEL, "start with a lower-case letter");
  }

  /**
   * A training job name: a DNS-1035 label short enough that the operator's pod and Service names
   * ({@code <job>-<type>-<index>}) and any generated unique suffix still fit in 63 characters.
   *
   * @param reserved characters the caller appends, e.g. {@code "-worker-15".length()} plus the
   *     unique-name suffix
   */
  public static String jobName(String field, String value, int reserved) {
    if (reserved < 0 || reserved >= MAX_LABEL) {
      throw new IllegalArgumentException("reserved must be in [0, 62]: " + reserved);
    }
    return label(field, value, MAX_LABEL - reserved, DNS1035_LABEL,
        "start with a lower-case letter");
  }

  /** A DNS-1123 label (namespaces, container names): like DNS-1035 but may start with a digit. */
  public static String dns1123Label(String field, String value) {
    return label(field, value, MAX_LABEL, DNS1123_LABEL, "start with a lower-case letter or digit");
  }

  /**
   * A DNS-1123 subdomain (names of Secrets, ConfigMaps, PVCs, PVs): dot-separated DNS-1123 labels,
   * at most 253 characters.
   */
  public static String dns1123Subdomain(String field, String value) {
    requireText(field, value);
    if (value.length() > MAX_SUBDOMAIN) {
      throw InvalidInputException.of(field,
          "'" + abbreviate(value) + "' is " + value.length() + " characters long, the limit is "
              + MAX_SUBDOMAIN,
          "shorten it to at most " + MAX_SUBDOMAIN + " characters");
    }
    for (String part : value.split("\\.", -1)) {
      if (!DNS1123_LABEL.matcher(part).matches() || part.length() > MAX_LABEL) {
        throw InvalidInputException.of(field,
            "'" + abbreviate(value) + "' is not a DNS-1123 subdomain",
            "use lower-case letters, digits, '-' and '.', each dot-separated part starting and"
                + " ending with a letter or digit" + suggestion(value));
      }
    }
    return value;
  }

  /**
   * A Kubernetes resource quantity such as {@code 500m}, {@code 2}, {@code 4Gi} or {@code 1e3},
   * not negative. The hint names the likely intended spelling ({@code 4GB} becomes {@code 4G} or
   * {@code 4Gi}).
   */
  public static String quantity(String field, String value) {
    requireText(field, value);
    String trimmed = value.trim();
    if (!QUANTITY.matcher(trimmed).matches()) {
      throw InvalidInputException.of(field, "'" + abbreviate(value) + "' is not a Kubernetes quantity",
          quantityHint(trimmed));
    }
    if (trimmed.startsWith("-") && !isZero(trimmed)) {
      throw InvalidInputException.of(field, "'" + value + "' is negative",
          "give a positive amount, e.g. '500m' cpu or '4Gi' memory");
    }
    return trimmed;
  }

  /** A count that must be at least {@code min}, e.g. replicas (1) or workers (0). */
  public static int atLeast(String field, int value, int min) {
    if (value < min) {
      throw InvalidInputException.of(field, value + " is below the minimum of " + min,
          "use a value of at least " + min);
    }
    return value;
  }

  /** A non-blank string. */
  public static String requireText(String field, String value) {
    if (value == null || value.isBlank()) {
      throw InvalidInputException.of(field, "is " + (value == null ? "missing" : "blank"),
          "give a non-empty " + field);
    }
    return value;
  }

  private static String label(String field, String value, int max, Pattern pattern,
      String startRule) {
    requireText(field, value);
    if (value.length() > max) {
      throw InvalidInputException.of(field,
          "'" + abbreviate(value) + "' is " + value.length() + " characters long, the cap is " + max
              + (max < MAX_LABEL ? " (63 minus " + (MAX_LABEL - max)
                  + " reserved for the '-<replica type>-<index>' pod suffix and any unique suffix)"
                  : ""),
          "shorten it to at most " + max + " characters");
    }
    if (!pattern.matcher(value).matches()) {
      throw InvalidInputException.of(field, "'" + abbreviate(value) + "' is not a valid name",
          "use lower-case letters, digits and '-', " + startRule
              + " and end with a letter or digit" + suggestion(value));
    }
    return value;
  }

  private static String suggestion(String value) {
    String lowered = value.toLowerCase(Locale.ROOT).replaceAll("[^-a-z0-9.]", "-")
        .replaceAll("^[^a-z0-9]+", "").replaceAll("[^a-z0-9]+$", "");
    return lowered.isEmpty() || lowered.equals(value) ? "" : ", e.g. '" + abbreviate(lowered) + "'";
  }

  private static String quantityHint(String value) {
    var parts = NUMBER_THEN_SUFFIX.matcher(value);
    if (parts.matches()) {
      String number = parts.group(1);
      String suffix = parts.group(2);
      String upper = suffix.toUpperCase(Locale.ROOT);
      if (upper.length() <= 3 && upper.charAt(0) != 'I' && "KMGTPE".indexOf(upper.charAt(0)) >= 0) {
        String unit = upper.substring(0, 1);
        return "write '" + number + unit + "i' (binary, usual for memory) or '" + number + unit
            + "' (decimal); suffixes are Ki Mi Gi Ti Pi Ei or k M G T P E, case-sensitive";
      }
    }
    return "write a number with an optional suffix: m (milli), k M G T P E (decimal) or"
        + " Ki Mi Gi Ti Pi Ei (binary), e.g. '500m', '2', '4Gi'";
  }

  private static boolean isZero(String quantity) {
    try {
      String digits = quantity.replaceAll("[^0-9.]", "");
      return !digits.isEmpty() && new BigDecimal(digits).signum() == 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String abbreviate(String value) {
    return value.length() <= 80 ? value : value.substring(0, 77) + "...";
  }
}

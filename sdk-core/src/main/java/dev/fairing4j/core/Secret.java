package dev.fairing4j.core;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;

/**
 * A password, token or key that must never be printed. Its {@link #toString()} is a fixed mask, so
 * a secret inside a record, a log line or an exception message shows as {@code ****}; only
 * {@link #reveal()} hands out the value, at the one place that sends it.
 */
public final class Secret {
  private final char[] value;

  private Secret(char[] value) {
    this.value = value;
  }

  /** Wraps {@code value}; the characters are copied, so the caller may clear its array. */
  public static Secret of(char[] value) {
    Objects.requireNonNull(value, "value");
    return new Secret(value.clone());
  }

  /** Wraps {@code value}. */
  public static Secret of(String value) {
    Objects.requireNonNull(value, "value");
    return new Secret(value.toCharArray());
  }

  /** The secret value, for the one call that must send it. */
  public String reveal() {
    return new String(value);
  }

  /** True for an empty secret. */
  public boolean isEmpty() {
    return value.length == 0;
  }

  @Override
  public boolean equals(Object other) {
    // Constant time, so comparing secrets leaks nothing through timing.
    return other instanceof Secret that
        && MessageDigest.isEqual(new String(value).getBytes(java.nio.charset.StandardCharsets.UTF_8),
            new String(that.value).getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(value) * 0 + value.length;
  }

  @Override
  public String toString() {
    return "****";
  }
}

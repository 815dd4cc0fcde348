package dev.fairing4j.core;

import java.util.Objects;

/**
 * Bad configuration, found before any network call: names the field that is wrong, what is wrong
 * with it, and how to fix it. Thrown by every validator and by the pipeline's own checks, so a
 * caller can catch this type to tell "you asked for something impossible" apart from a failure of
 * the outside world.
 */
public final class InvalidInputException extends FairingException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String fix;

  private InvalidInputException(String field, String problem, String fix, Throwable cause) {
    super("validate " + field, null, problem, fix, null, null, cause);
    this.field = Objects.requireNonNull(field, "field");
    this.fix = Objects.requireNonNull(fix, "fix");
  }

  /**
   * An invalid {@code field}: {@code problem} says what is wrong (quote the value only when it is
   * not secret), {@code fix} says what to do instead.
   */
  public static InvalidInputException of(String field, String problem, String fix) {
    return new InvalidInputException(field, problem, fix, null);
  }

  /** Like {@link #of(String, String, String)}, keeping the low-level cause. */
  public static InvalidInputException of(String field, String problem, String fix,
      Throwable cause) {
    return new InvalidInputException(field, problem, fix, cause);
  }

  /** The configuration field at fault, as the user wrote it, e.g. {@code "jobName"}. */
  public String field() {
    return field;
  }

  /** What to do instead. */
  public String fix() {
    return fix;
  }
}

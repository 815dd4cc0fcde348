package dev.fairing4j.deploy.internal;

/**
 * How to submit when the name is taken.
 *
 * @param replaceExisting delete an existing job of the same name first (and wait until it is gone)
 */
public record SubmitOptions(boolean replaceExisting) {
  /** Fail with a clear error when the name is taken. */
  public static final SubmitOptions DEFAULT = new SubmitOptions(false);
}

package dev.fairing4j.core;

import java.util.Objects;
import java.util.Optional;

/**
 * The root of every error fairing4j throws: unchecked, so it crosses lambdas, JShell cells and
 * notebook kernels untouched, and structured, so a caller can react to what failed without parsing
 * the message.
 *
 * <p>Each instance says <em>what</em> failed (an operation such as {@code "push image"}), optionally
 * <em>which object</em> (a registry, a job, a file), the HTTP status or process exit code where one
 * exists, and a <em>hint</em>: the concrete next step for the user. Secrets never appear in any of
 * these fields; subclasses that carry user input keep it to names and references.
 */
public class FairingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String what;
  private final String subject;
  private final Integer httpStatus;
  private final Integer exitCode;
  private final String hint;

  /**
   * Creates an exception; {@code subject}, {@code hint}, {@code httpStatus}, {@code exitCode} and
   * {@code cause} may be null when they do not apply.
   */
  protected FairingException(String what, String subject, String message, String hint,
      Integer httpStatus, Integer exitCode, Throwable cause) {
    super(compose(what, subject, message, hint), cause);
    this.what = Objects.requireNonNull(what, "what");
    this.subject = subject;
    this.hint = hint;
    this.httpStatus = httpStatus;
    this.exitCode = exitCode;
  }

  /** A failure of {@code what}, explained by {@code message}, with a hint on how to fix it. */
  public static FairingException of(String what, String message, String hint) {
    return new FairingException(what, null, message, hint, null, null, null);
  }

  /** A failure of {@code what} on {@code subject}, caused by {@code cause}. */
  public static FairingException of(String what, String subject, String message, String hint,
      Throwable cause) {
    return new FairingException(what, subject, message, hint, null, null, cause);
  }

  /** The operation that failed, e.g. {@code "push image"} or {@code "submit job"}. */
  public String what() {
    return what;
  }

  /** The object the operation was working on (a registry, a job name, a file path). */
  public Optional<String> subject() {
    return Optional.ofNullable(subject);
  }

  /** The user's next step, when there is a concrete one. */
  public Optional<String> hint() {
    return Optional.ofNullable(hint);
  }

  /** The HTTP status of the failed request, when the failure came from a server. */
  public Optional<Integer> httpStatus() {
    return Optional.ofNullable(httpStatus);
  }

  /** The exit code of the failed process, when the failure came from one. */
  public Optional<Integer> exitCode() {
    return Optional.ofNullable(exitCode);
  }

  private static String compose(String what, String subject, String message, String hint) {
    StringBuilder text = new StringBuilder(what);
    if (subject != null) {
      text.append(" [").append(subject).append(']');
    }
    text.append(" failed");
    if (message != null && !message.isBlank()) {
      text.append(": ").append(message);
    }
    if (hint != null && !hint.isBlank()) {
      text.append(" (fix: ").append(hint).append(')');
    }
    return text.toString();
  }
}

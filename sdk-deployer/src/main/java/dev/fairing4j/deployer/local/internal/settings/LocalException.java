package dev.fairing4j.deployer.local.internal.settings;

import dev.fairing4j.core.FairingException;

/**
 * A failure of the local cluster that came from a process it ran (pip, bwrap): carries the exit
 * code besides what failed and the hint. Package-private: callers catch it as the
 * {@link FairingException} it is and read {@link FairingException#exitCode()}, so no user code
 * names a class of an internal package.
 */
public final class LocalException extends FairingException {
  private static final long serialVersionUID = 1L;

  private LocalException(String what, String subject, String message, String hint,
      Integer exitCode, Throwable cause) {
    super(what, subject, message, hint, null, exitCode, cause);
  }

  /** A process run for {@code what} on {@code subject} exited with {@code exitCode}. */
  public static LocalException exited(String what, String subject, int exitCode, String message,
      String hint) {
    return new LocalException(what, subject, message, hint, exitCode, null);
  }
}

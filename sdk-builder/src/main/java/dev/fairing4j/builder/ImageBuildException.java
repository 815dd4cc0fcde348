package dev.fairing4j.builder;

import dev.fairing4j.core.FairingException;

/**
 * An image build or push that failed because of the outside world: a registry that cannot be
 * reached, refuses the credentials, or lacks the base image; a base Jib cannot read. Carries the
 * registry ({@code host:port}) as its subject and the HTTP status where there was one. Messages
 * name the registry and the user, never a password or token.
 */
public final class ImageBuildException extends FairingException {
  private static final long serialVersionUID = 1L;

  private ImageBuildException(String what, String registry, String message, String hint,
      Integer httpStatus, Throwable cause) {
    super(what, registry, message, hint, httpStatus, null, cause);
  }

  /**
   * A failure of {@code what} against {@code registry}; {@code httpStatus} may be null when no
   * response came back.
   */
  public static ImageBuildException of(String what, String registry, String message, String hint,
      Integer httpStatus, Throwable cause) {
    return new ImageBuildException(what, registry, message, hint, httpStatus, cause);
  }
}

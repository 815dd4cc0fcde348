package dev.fairing4j.core;

import java.util.Optional;

/**
 * A predict request that got no predictions: the model server answered with an error (a 500
 * carries the predictor's exception as {@code Type: message}, which is {@link #serverError()}),
 * or it could not be reached. {@link #httpStatus()} is the server's status code where one came.
 */
public class PredictionException extends FairingException {
  private static final long serialVersionUID = 1L;

  private final String serverError;

  /**
   * The server at {@code endpoint} answered {@code status} with the error text
   * {@code serverError} (empty when it sent none).
   */
  public PredictionException(String endpoint, int status, String serverError, String hint) {
    super("predict", endpoint, "the endpoint answered HTTP " + status
        + (serverError.isEmpty() ? "" : ": " + serverError), hint, status, null, null);
    this.serverError = serverError;
  }

  /** The request did not reach a model server, for {@code why}. */
  public PredictionException(String endpoint, String why, String hint, Throwable cause) {
    super("predict", endpoint, why, hint, null, null, cause);
    this.serverError = null;
  }

  /** The server's own error text ({@code {"error": ...}}), when it answered with one. */
  public Optional<String> serverError() {
    return Optional.ofNullable(serverError);
  }
}

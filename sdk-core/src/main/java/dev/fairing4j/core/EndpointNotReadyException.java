package dev.fairing4j.core;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link Endpoint} that did not become ready: either it cannot without a fix (an image that
 * does not pull, a crashing server, a model that failed to load: {@link #timedOut()} false), or
 * the wait's timeout passed first. The message holds the reason, the failing pod and the model
 * server's last log lines; the endpoint is left as it is, so its logs can still be read.
 */
public class EndpointNotReadyException extends FairingException {
  private static final long serialVersionUID = 1L;

  private final transient EndpointStatus lastStatus;
  private final boolean timedOut;

  /** The endpoint cannot become ready: {@code why} says what holds it, {@code hint} the fix. */
  public EndpointNotReadyException(EndpointStatus lastStatus, String why, String hint) {
    super("wait for endpoint", lastStatus.name(), why, hint, null, null, null);
    this.lastStatus = lastStatus;
    this.timedOut = false;
  }

  /** The wait ran out after {@code timeout}; {@code why} says what it was still waiting for. */
  public EndpointNotReadyException(EndpointStatus lastStatus, Duration timeout, String why) {
    super("wait for endpoint", lastStatus.name(), "not ready after " + timeout.toSeconds()
        + " s: " + Objects.requireNonNull(why, "why"), "wait longer, or read endpoint.logs()"
        + " and endpoint.status()", null, null, null);
    this.lastStatus = lastStatus;
    this.timedOut = true;
  }

  /** The status read last; empty only after the exception was serialized. */
  public Optional<EndpointStatus> lastStatus() {
    return Optional.ofNullable(lastStatus);
  }

  /** True when the timeout passed; false when the endpoint cannot become ready. */
  public boolean timedOut() {
    return timedOut;
  }
}

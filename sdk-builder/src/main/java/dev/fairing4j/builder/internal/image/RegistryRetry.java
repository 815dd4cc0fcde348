package dev.fairing4j.builder.internal.image;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Bounded exponential backoff for registry calls that fail for a moment: a 500/502/503/504, a
 * connection reset or refused, a response that never came. Registries behind load balancers
 * answer 503 during a rollout, and a restarting registry refuses connections for a second or
 * two; an unattended pipeline should ride that out instead of failing a training run.
 *
 * <p>Everything retried here is idempotent: manifest reads, and whole Jib pushes, which address
 * blobs by digest, skip what the registry already holds and write the manifest (and tags) last,
 * so a repeated push converges on the same image and never leaves a tag on a partial one.
 * Authentication, TLS and not-found failures are never retried: they do not heal by waiting.
 */
final class RegistryRetry {
  /** Tries of one call in all (the first plus three retries). */
  static final int ATTEMPTS = 4;
  /** The pause before the first retry; each later pause doubles, capped at {@link #MAX_DELAY}. */
  static final Duration FIRST_DELAY = Duration.ofMillis(250);
  static final Duration MAX_DELAY = Duration.ofSeconds(2);

  // Jib's (google-http-client's) HttpResponseException message starts with the status line
  private static final Pattern RETRYABLE_STATUS =
      Pattern.compile("(?:^|\\s|: )(500|502|503|504)(?:\\s|$)");

  private RegistryRetry() {}

  /** The pause before retry number {@code retry} (1-based): 250 ms, 500 ms, 1 s, 2 s, 2 s... */
  static Duration delay(int retry) {
    long millis = FIRST_DELAY.toMillis() << Math.min(retry - 1, 16);
    return Duration.ofMillis(Math.min(millis, MAX_DELAY.toMillis()));
  }

  /** Whether an HTTP status is worth another try. */
  static boolean retryableStatus(int status) {
    return status == 500 || status == 502 || status == 503 || status == 504;
  }

  /**
   * Whether a failure anywhere in {@code failure}'s cause chain is transient: a connection reset,
   * refused or timed out, or a 5xx status in a Jib error. TLS and authentication failures are
   * not, whatever wraps them.
   */
  static boolean transientFailure(Throwable failure) {
    boolean transientSeen = false;
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      String type = cause.getClass().getName();
      if (cause instanceof SSLException || type.endsWith("RegistryUnauthorizedException")
          || type.endsWith("InsecureRegistryException")) {
        return false;
      }
      String message = String.valueOf(cause.getMessage());
      if (cause instanceof ConnectException || cause instanceof SocketTimeoutException
          || cause instanceof SocketException || type.endsWith("NoHttpResponseException")
          || type.endsWith("ConnectionClosedException")
          || (cause instanceof IOException && message.toLowerCase(Locale.ROOT)
              .contains("connection reset"))
          || RETRYABLE_STATUS.matcher(message).find()) {
        transientSeen = true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return transientSeen;
  }

  /** Sleeps before retry number {@code retry}; false when interrupted (stop retrying). */
  static boolean pause(int retry) {
    try {
      Thread.sleep(delay(retry).toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}

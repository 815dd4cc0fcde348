package dev.fairing4j.deployer.kubernetes.internal.transport;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;

/**
 * When a request to the API server is worth sending again, and after how long. An API server
 * answers 429 (API Priority and Fairness on a busy cluster, "storage is (re)initializing" after a
 * restart) and 503 (while it starts or shuts down) for a while, with a {@code Retry-After}
 * header; a gateway in front of it answers 502 and 504; nothing listens during a restart. A
 * request the server cannot have carried out (a refusal before processing, a connection never
 * made) is sent again whatever its method; one it may have carried out (a 500, 502 or 504, a
 * read that timed out) only when sending it twice does no harm, which rules out {@code POST}.
 */
final class ApiRetry {
  /** The first pause when the server names none; it doubles up to {@link #MAX_PAUSE}. */
  static final Duration FIRST_PAUSE = Duration.ofMillis(250);
  /** The longest pause, whatever {@code Retry-After} asks for: the deadline bounds the rest. */
  static final Duration MAX_PAUSE = Duration.ofSeconds(5);

  private ApiRetry() {}

  /** Whether an answer {@code code} to a {@code method} request is worth sending again. */
  static boolean temporary(String method, int code) {
    return switch (code) {
      case 429, 503 -> true;
      case 500, 502, 504 -> !method.equals("POST");
      default -> false;
    };
  }

  /** Whether a {@code method} request that failed with {@code e} is worth sending again. */
  static boolean temporary(String method, IOException e) {
    if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
      return true;  // nothing was sent
    }
    if (e instanceof SocketTimeoutException timeout) {
      // OkHttp says "connect timed out" when the connection was never made.
      boolean connect = timeout.getMessage() != null && timeout.getMessage().contains("connect");
      return connect || !method.equals("POST");
    }
    if (e instanceof InterruptedIOException) {
      return false;  // a call timeout or an interrupt: the caller's bound, not the server's
    }
    return !method.equals("POST");  // a reset or a closed stream, mid-answer
  }

  /**
   * The pause before attempt {@code attempt + 1}: the server's {@code Retry-After} in seconds
   * when it sent one, else {@link #FIRST_PAUSE} doubled per attempt; at most {@link #MAX_PAUSE}.
   */
  static Duration pause(int attempt, Optional<String> retryAfter) {
    Duration asked = retryAfter.flatMap(ApiRetry::seconds).orElseGet(
        () -> FIRST_PAUSE.multipliedBy(1L << Math.min(attempt - 1, 10)));
    return asked.compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : asked;
  }

  private static Optional<Duration> seconds(String header) {
    try {
      long seconds = Long.parseLong(header.trim());
      return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
    } catch (NumberFormatException e) {
      return Optional.empty();  // an HTTP date: the backoff will do
    }
  }
}

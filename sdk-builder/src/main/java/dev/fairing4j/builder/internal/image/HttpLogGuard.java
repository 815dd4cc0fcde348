package dev.fairing4j.builder.internal.image;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps registry credentials out of the HTTP clients' request logs.
 *
 * <p>The SDK's own registry requests ({@link RegistryClient}) go through the JDK's
 * {@code HttpURLConnection}, which logs every request's headers at {@code FINE}, the
 * {@code Authorization} header unmasked among them: that logger is capped at {@code INFO} when
 * someone turned it (or the root) up, so its request log is lost but never the password.
 *
 * <p>Jib talks to registries
 * through google-http-client, whose {@code HttpTransport} logger writes every request with its
 * headers at {@code CONFIG} and, when the logger is enabled at {@code Level.ALL}, the
 * {@code Authorization} header too: a user turning java.util.logging up to ALL to debug a push
 * would print the registry password (base64 of {@code user:password}) into a CI log. Capping that
 * logger at {@code FINEST} keeps the request log (with {@code Authorization: <Not Logged>}) and
 * drops only the credential.
 */
final class HttpLogGuard {
  // held in a field: java.util.logging forgets the level of a logger nobody references
  private static final Logger HTTP_TRANSPORT =
      Logger.getLogger("com.google.api.client.http.HttpTransport");
  private static final Logger URL_CONNECTION =
      Logger.getLogger("sun.net.www.protocol.http.HttpURLConnection");

  private HttpLogGuard() {}

  /** Caps both loggers; run per build, as logging may change at any time. */
  static void apply() {
    if (HTTP_TRANSPORT.isLoggable(Level.ALL)) {
      HTTP_TRANSPORT.setLevel(Level.FINEST);
    }
    if (URL_CONNECTION.isLoggable(Level.FINE)) {
      URL_CONNECTION.setLevel(Level.INFO);
    }
  }
}

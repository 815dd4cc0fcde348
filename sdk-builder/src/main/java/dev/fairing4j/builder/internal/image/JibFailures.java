package dev.fairing4j.builder.internal.image;

import com.google.cloud.tools.jib.api.InsecureRegistryException;
import com.google.cloud.tools.jib.api.RegistryUnauthorizedException;
import dev.fairing4j.builder.ImageBuildException;
import dev.fairing4j.core.FairingException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Turns what Jib throws into a {@link FairingException} that names the registry and says what to
 * do. Known secrets are masked in every message, in case a cause quotes one.
 */
final class JibFailures {
  private static final Pattern HOST_PORT = Pattern.compile("([A-Za-z0-9.-]+:\\d{1,5})");

  private JibFailures() {}

  /**
   * @param target the target registry ({@code host:port}) or the tar path
   * @param baseRegistry the base registry, empty for a tar or scratch base
   * @param secrets passwords that must not appear
   */
  static FairingException map(Throwable failure, String target, String baseRegistry,
      String baseImage, List<String> secrets) {
    Throwable root = failure;
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      root = cause;
      if (cause instanceof RegistryUnauthorizedException unauthorized) {
        // The status itself sits in a google-http-client type that is not on our compile path.
        int status = String.valueOf(unauthorized.getMessage()).contains("403") ? 403 : 401;
        String reference = unauthorized.getImageReference();
        String registry = reference.contains("/") ? reference.substring(0, reference.indexOf('/'))
            : reference;
        boolean base = registry.equals(baseRegistry) && !registry.equals(target);
        return ImageBuildException.of(base ? "pull base image" : "push image", registry,
            "registry " + registry + " answered " + status + " for " + reference
                + ": the credentials are missing, wrong, or may"
                + " not " + (base ? "pull" : "push") + " there",
            "check the user and password given to " + (base ? "baseCredentials(..)"
                : "credentials(..)") + " or dockerConfig() for " + registry, status, null);
      }
      if (cause instanceof InsecureRegistryException || cause instanceof SSLException) {
        return tls(hostPort(cause, target), cause, secrets);
      }
      if (cause instanceof ConnectException || cause instanceof UnknownHostException
          || cause instanceof NoRouteToHostException || cause instanceof SocketTimeoutException) {
        String registry = hostPort(cause, target);
        return ImageBuildException.of("connect", registry, "registry " + registry
            + " is unreachable: " + mask(message(cause), secrets), "check that the registry"
            + " runs and that host and port are right; a proxy or firewall may block it", null,
            null);
      }
      String text = String.valueOf(cause.getMessage());
      if (text.contains("artifactType") || text.contains("\"data\"")
          || (cause.getClass().getName().contains("jackson") && text.contains("Unrecognized"))) {
        return indexWithArtifacts(baseRegistry, baseImage, text, secrets);
      }
      String lower = text.toLowerCase(Locale.ROOT);
      if (!baseRegistry.isEmpty() && (lower.contains("manifest unknown")
          || lower.contains("manifest_unknown") || lower.contains("name unknown")
          || lower.contains("name_unknown") || lower.contains("tried to pull image manifest"))) {
        return baseNotFound(baseRegistry, baseImage, mask(text, secrets));
      }
    }
    return ImageBuildException.of("build image", target, mask(message(root), secrets),
        "see the cause; run with DEBUG logging for dev.fairing4j.builder.jib to see Jib's steps",
        null, failure);
  }

  /**
   * HTTPS to {@code registry} failed verification (or the registry does not speak TLS at all) and
   * plain HTTP is not allowed for it.
   */
  static ImageBuildException tls(String registry, Throwable cause, List<String> secrets) {
    String detail = mask(message(cause), secrets);
    // what JSSE says when the other side answers a TLS hello in plain HTTP
    boolean plainHttp = detail.contains("Unsupported or unrecognized SSL message");
    return ImageBuildException.of("connect", registry, "cannot talk verified HTTPS to "
        + registry + ": " + detail + (plainHttp ? " (it answers in plain HTTP)" : ""),
        plainHttp ? "serve the registry over TLS (a private CA is trusted with"
            + " trustedCertificates(Path.of(\"ca.pem\"))); for a throw-away test registry only,"
            + " allowInsecure(). Without it plain HTTP is used only when base and target"
            + " registries are both on this machine"
            : "trust its CA with trustedCertificates(Path.of(\"ca.pem\")); for a throw-away test"
            + " registry, allowInsecure()", null, null);
  }

  static ImageBuildException baseNotFound(String registry, String image, String detail) {
    return ImageBuildException.of("pull base image", registry, "base image " + image
        + " was not found in " + registry + (detail.isEmpty() ? "" : " (" + detail + ")"),
        "check the name and tag (skopeo inspect docker://" + image + " should show it), or"
            + " push the base there first", 404, null);
  }

  static ImageBuildException indexWithArtifacts(String registry, String image, String detail,
      List<String> secrets) {
    return ImageBuildException.of("pull base image", registry.isEmpty() ? null : registry,
        "base image " + image + " is an image index whose entries carry artifactType or data"
            + " (attestations), which Jib cannot read" + (detail.isEmpty() ? ""
                : " (" + mask(detail, secrets) + ")"),
        "pin the base by its platform manifest digest, e.g. " + image.replaceAll("[:@].*$", "")
            + "@sha256:<linux/amd64 manifest digest> (skopeo inspect --raw shows the index), or"
            + " copy that one platform into your registry with skopeo copy", null, null);
  }

  private static String hostPort(Throwable cause, String fallback) {
    Matcher matcher = HOST_PORT.matcher(String.valueOf(cause.getMessage()));
    return matcher.find() ? matcher.group(1) : fallback;
  }

  private static String message(Throwable cause) {
    return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
  }

  static String mask(String text, List<String> secrets) {
    String masked = text;
    for (String secret : secrets) {
      if (!secret.isEmpty()) {
        masked = masked.replace(secret, "****");
      }
    }
    return masked;
  }
}

package dev.fairing4j.deployer.local.internal;

import java.util.Locale;

/**
 * Image references as a container runtime reads them: which registry an image comes from, and the
 * fully qualified name podman needs (it refuses to guess a registry for a short name where
 * Kubernetes' runtimes assume Docker Hub).
 */
public final class ImageNames {
  private ImageNames() {}

  /** The registry of {@code image} ({@code host[:port]}); {@code docker.io} for a short name. */
  public static String registry(String image) {
    int slash = image.indexOf('/');
    if (slash < 0) {
      return "docker.io";
    }
    String first = image.substring(0, slash);
    boolean isHost = first.contains(".") || first.contains(":") || first.equals("localhost")
        || first.startsWith("[");
    return isHost ? first : "docker.io";
  }

  /** {@code image} with its registry spelled out, as containerd would read it. */
  public static String qualified(String image) {
    int slash = image.indexOf('/');
    if (slash >= 0 && !registry(image).equals("docker.io")) {
      return image;
    }
    if (slash >= 0 && image.substring(0, slash).equals("docker.io")) {
      return image;
    }
    return "docker.io/" + (slash < 0 ? "library/" : "") + image;
  }

  /** Whether {@code image} comes from a registry on this machine's loopback interface. */
  public static boolean isLoopback(String image) {
    String registry = registry(image).toLowerCase(Locale.ROOT);
    String host;
    if (registry.startsWith("[")) {
      host = registry.substring(1, Math.max(1, registry.indexOf(']')));
    } else {
      int colon = registry.lastIndexOf(':');
      host = colon < 0 ? registry : registry.substring(0, colon);
    }
    // an IPv4 literal in 127/8, not a name that merely starts with 127. (127.0.0.1.nip.io)
    return host.equals("localhost") || host.equals("::1")
        || host.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
  }
}

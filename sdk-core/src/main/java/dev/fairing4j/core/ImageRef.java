package dev.fairing4j.core;

import dev.fairing4j.core.internal.Validators;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A container image: registry, repository, and a tag, a digest or both. {@link #reference()} is
 * what a pod spec should say: {@code registry/repo@sha256:...} once the digest is known (so what
 * runs is exactly what was built), {@code registry/repo:tag} before.
 *
 * @param registry host and optional port, e.g. {@code registry.example.com} or
 *     {@code 127.0.0.1:5000}; {@code docker.io} for Docker Hub
 * @param repository the path within the registry, e.g. {@code team/mnist}
 * @param tag the tag, if any
 * @param digest {@code sha256:<64 hex>}, if known
 */
public record ImageRef(String registry, String repository, Optional<String> tag,
    Optional<String> digest) {

  /** Docker Hub's canonical registry name. */
  public static final String DOCKER_HUB = "docker.io";

  private static final Pattern REGISTRY =
      Pattern.compile("[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?(:[0-9]{1,5})?|\\[[0-9a-fA-F:]+\\](:[0-9]{1,5})?");
  private static final Pattern REPOSITORY = Pattern.compile(
      "[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*)*");
  private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

  /** Validates every part; see {@link #parse(String)} for the error messages. */
  public ImageRef {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(repository, "repository");
    tag = tag == null ? Optional.empty() : tag;
    digest = digest == null ? Optional.empty() : digest;
    String whole = registry + "/" + repository;
    if (!REGISTRY.matcher(registry).matches()) {
      throw invalid(whole, "registry '" + registry + "' is not a host[:port]");
    }
    if (!REPOSITORY.matcher(repository).matches() || repository.length() > 255) {
      throw invalid(whole, "repository '" + repository
          + "' must be lower-case letters, digits and separators (. _ __ -) in '/'-separated parts");
    }
    tag.ifPresent(t -> {
      if (!TAG.matcher(t).matches()) {
        throw invalid(whole, "tag '" + t + "' must be up to 128 letters, digits, '_', '.', '-'"
            + " and must not start with '.' or '-'");
      }
    });
    digest.ifPresent(d -> {
      if (!DIGEST.matcher(d).matches()) {
        throw invalid(whole, "digest '" + d + "' is not sha256:<64 lower-case hex digits>");
      }
    });
  }

  /**
   * Parses a reference as docker does: {@code mnist} is {@code docker.io/library/mnist},
   * {@code team/mnist} is {@code docker.io/team/mnist}, and a first component with a '.', a ':' or
   * equal to {@code localhost} is a registry. Accepts {@code :tag}, {@code @sha256:...} or both.
   *
   * @throws InvalidInputException naming the image field when the reference is malformed
   */
  public static ImageRef parse(String reference) {
    Validators.requireText("image", reference);
    String rest = reference.trim();
    String digest = null;
    int at = rest.indexOf('@');
    if (at >= 0) {
      digest = rest.substring(at + 1);
      rest = rest.substring(0, at);
    }
    String tag = null;
    int lastSlash = rest.lastIndexOf('/');
    int colon = rest.lastIndexOf(':');
    if (colon > lastSlash) {
      tag = rest.substring(colon + 1);
      rest = rest.substring(0, colon);
    }
    String registry = DOCKER_HUB;
    String repository = rest;
    int firstSlash = rest.indexOf('/');
    if (firstSlash > 0) {
      String first = rest.substring(0, firstSlash);
      if (first.contains(".") || first.contains(":") || first.equals("localhost")
          || first.startsWith("[")) {
        registry = first;
        repository = rest.substring(firstSlash + 1);
      }
    }
    if (repository.isEmpty() || (tag != null && tag.isEmpty())
        || (digest != null && digest.isEmpty())) {
      throw invalid(reference, "it is incomplete");
    }
    if (registry.equals(DOCKER_HUB) && !repository.contains("/")) {
      repository = "library/" + repository;
    }
    return new ImageRef(registry, repository, Optional.ofNullable(tag),
        Optional.ofNullable(digest));
  }

  /** The same image with another tag. */
  public ImageRef withTag(String newTag) {
    return new ImageRef(registry, repository, Optional.of(newTag), digest);
  }

  /** The same image pinned to {@code newDigest}. */
  public ImageRef withDigest(String newDigest) {
    return new ImageRef(registry, repository, tag, Optional.of(newDigest));
  }

  /** {@code registry/repository}, without tag or digest. */
  public String name() {
    return registry + "/" + repository;
  }

  /**
   * What a pod should pull: {@code name@digest} when the digest is known, else {@code name:tag},
   * else {@code name:latest}.
   */
  public String reference() {
    if (digest.isPresent()) {
      return name() + "@" + digest.get();
    }
    return name() + ":" + tag.orElse("latest");
  }

  /** True for a registry on this machine (127.0.0.0/8, ::1, localhost). */
  public boolean isLoopback() {
    String host = registry.startsWith("[")
        ? registry.substring(1, registry.indexOf(']'))
        : registry.contains(":") ? registry.substring(0, registry.lastIndexOf(':')) : registry;
    return host.equals("localhost") || host.equals("::1")
        || host.matches("127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}");
  }

  private static InvalidInputException invalid(String reference, String problem) {
    return InvalidInputException.of("image", "'" + reference + "' is not a valid image reference: "
        + problem, "write [registry[:port]/]repository[:tag][@sha256:<digest>], e.g."
        + " registry.example.com/team/mnist:v1");
  }

  @Override
  public String toString() {
    return digest.isPresent() && tag.isPresent()
        ? name() + ":" + tag.get() + "@" + digest.get() : reference();
  }
}

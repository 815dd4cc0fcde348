package dev.fairing4j.builder.internal.image;

import dev.fairing4j.builder.ImageFormat;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.cache.Caches;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a Jib build is configured with, as one immutable value; the public
 * {@code JibImageBuilder} is a fluent face over it.
 *
 * @param base what the image is built on
 * @param repository where the image is pushed (registry and repository, no tag)
 * @param tar a tar file to write instead of pushing
 * @param dockerDaemon load the image into the local Docker engine instead of pushing
 * @param format Docker or OCI manifests
 * @param tags tags pushed besides the content tag
 * @param targetCredentials credentials for the target registry
 * @param baseCredentials credentials for the base registry, when set apart
 * @param allowInsecure the user's explicit opt-in to plain HTTP and unverified TLS
 * @param baseLayerCache Jib's base-layer cache directory
 * @param user the user the container runs as
 * @param trustedCertificates PEM files with CAs to trust besides the JVM's own
 * @param exposedPorts ports the image declares, e.g. {@code 8080/tcp} (a Dockerfile's EXPOSE)
 * @param volumes paths the image declares as volumes (a Dockerfile's VOLUME)
 */
public record BuildSettings(BaseImage base, Optional<ImageRef> repository, Optional<Path> tar,
    boolean dockerDaemon, ImageFormat format, List<String> tags, CredentialSource targetCredentials,
    Optional<CredentialSource> baseCredentials, boolean allowInsecure,
    Optional<Path> baseLayerCache, Optional<String> user, List<Path> trustedCertificates,
    List<String> exposedPorts, List<String> volumes) {

  /** The image name a tar or Docker-engine target gets when no repository is set. */
  public static final String LOCAL_IMAGE_NAME = "localhost/fairing4j/image";

  /** Copies the lists. */
  public BuildSettings {
    Objects.requireNonNull(base, "base");
    tags = List.copyOf(tags);
    trustedCertificates = List.copyOf(trustedCertificates);
    exposedPorts = List.copyOf(exposedPorts);
    volumes = List.copyOf(volumes);
  }

  /** Settings for {@code base} and nothing else. */
  public static BuildSettings on(BaseImage base) {
    return new BuildSettings(base, Optional.empty(), Optional.empty(), false, ImageFormat.DOCKER,
        List.of(), CredentialSource.NONE, Optional.empty(), false, Optional.empty(),
        Optional.empty(), List.of(), List.of(), List.of());
  }

  /** Pushes to {@code newRepository} (registry and repository, no tag). */
  public BuildSettings withRepository(ImageRef newRepository) {
    return new BuildSettings(base, Optional.of(newRepository), tar, dockerDaemon, format, tags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, user,
        trustedCertificates, exposedPorts, volumes);
  }

  /** Writes a tar file instead of pushing. */
  public BuildSettings withTar(Path file) {
    return new BuildSettings(base, repository, Optional.of(file), false, format, tags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, user,
        trustedCertificates, exposedPorts, volumes);
  }

  /** Loads into the local Docker engine instead of pushing. */
  public BuildSettings withDockerDaemon() {
    return new BuildSettings(base, repository, Optional.empty(), true, format, tags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, user,
        trustedCertificates, exposedPorts, volumes);
  }

  /** Docker or OCI manifests. */
  public BuildSettings withFormat(ImageFormat newFormat) {
    return new BuildSettings(base, repository, tar, dockerDaemon, newFormat, tags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, user,
        trustedCertificates, exposedPorts, volumes);
  }

  /** Replaces the extra tags. */
  public BuildSettings withTags(List<String> newTags) {
    return new BuildSettings(base, repository, tar, dockerDaemon, format, newTags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, user,
        trustedCertificates, exposedPorts, volumes);
  }

  /** Replaces the target credentials. */
  public BuildSettings withTargetCredentials(CredentialSource credentials) {
    return new BuildSettings(base, repository, tar, dockerDaemon, format, tags, credentials,
        baseCredentials, allowInsecure, baseLayerCache, user, trustedCertificates, exposedPorts,
        volumes);
  }

  /** Replaces the base credentials. */
  public BuildSettings withBaseCredentials(CredentialSource credentials) {
    return new BuildSettings(base, repository, tar, dockerDaemon, format, tags,
        targetCredentials, Optional.of(credentials), allowInsecure, baseLayerCache, user,
        trustedCertificates, exposedPorts, volumes);
  }

  /** The user's opt-in to plain HTTP and unverified TLS. */
  public BuildSettings withAllowInsecure() {
    return new BuildSettings(base, repository, tar, dockerDaemon, format, tags,
        targetCredentials, baseCredentials, true, baseLayerCache, user, trustedCertificates,
        exposedPorts, volumes);
  }

  /** Sets the base-layer cache directory. */
  public BuildSettings withBaseLayerCache(Path directory) {
    return new BuildSettings(base, repository, tar, dockerDaemon, format, tags,
        targetCredentials, baseCredentials, allowInsecure, Optional.of(directory), user,
        trustedCertificates, exposedPorts, volumes);
  }

  /** Sets the container user. */
  public BuildSettings withUser(String newUser) {
    return new BuildSettings(base, repository, tar, dockerDaemon, format, tags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, Optional.of(newUser),
        trustedCertificates, exposedPorts, volumes);
  }

  /** Replaces the trusted CA files. */
  public BuildSettings withTrustedCertificates(List<Path> pemFiles) {
    return new BuildSettings(base, repository, tar, dockerDaemon, format, tags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, user, pemFiles,
        exposedPorts, volumes);
  }

  /** Builds on {@code newBase}. */
  public BuildSettings withBase(BaseImage newBase) {
    return new BuildSettings(newBase, repository, tar, dockerDaemon, format, tags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, user,
        trustedCertificates, exposedPorts, volumes);
  }

  /** Declares these ports and volumes in the image. */
  public BuildSettings withPortsAndVolumes(List<String> ports, List<String> paths) {
    return new BuildSettings(base, repository, tar, dockerDaemon, format, tags,
        targetCredentials, baseCredentials, allowInsecure, baseLayerCache, user,
        trustedCertificates, ports, paths);
  }

  /** Whether the image declares ports or volumes (a Dockerfile's EXPOSE or VOLUME). */
  public boolean declaresPortsOrVolumes() {
    return !exposedPorts.isEmpty() || !volumes.isEmpty();
  }

  /**
   * The ports and volumes as parts of a key ({@code ports, <ports>, volumes, <paths>}): the
   * fingerprint and the image template key both hash them.
   */
  public List<String> portsAndVolumesParts() {
    List<String> parts = new java.util.ArrayList<>();
    parts.add("ports");
    parts.addAll(exposedPorts);
    parts.add("volumes");
    parts.addAll(volumes);
    return parts;
  }

  /** True when the image is pushed to a registry (not written to a tar or a Docker engine). */
  public boolean pushes() {
    return tar.isEmpty() && !dockerDaemon;
  }

  /** The credentials used for the base registry. */
  public CredentialSource effectiveBaseCredentials() {
    if (baseCredentials.isPresent()) {
      return baseCredentials.get();
    }
    // One credentials(..) call covers base and target when they share a registry.
    if (base instanceof BaseImage.FromRegistry registryBase && repository.isPresent()
        && registryBase.image().registry().equals(repository.get().registry())) {
      return targetCredentials;
    }
    return targetCredentials.dockerConfig() ? CredentialSource.NONE.withDockerConfig()
        : CredentialSource.NONE;
  }

  /**
   * Whether plain HTTP may be used: on the user's opt-in, or when every registry involved is on
   * this machine (Jib's switch covers the base registry too, so a remote base forbids it).
   */
  public boolean insecureAllowed() {
    if (allowInsecure) {
      return true;
    }
    boolean targetLocal = repository.map(ImageRef::isLoopback).orElse(true);
    boolean baseLocal = !(base instanceof BaseImage.FromRegistry registryBase)
        || registryBase.image().isLoopback();
    return targetLocal && baseLocal;
  }

  /** Where base layers are cached. */
  public Path baseLayerCacheDirectory() {
    return baseLayerCache.orElseGet(() -> Caches.user().directory(Caches.JIB));
  }

  /** Where Jib caches application layers: beside the base-layer cache. */
  public Path applicationLayerCacheDirectory() {
    return sibling("-application-layers");
  }

  /** Where each build's snapshot of the context is staged: beside the base-layer cache. */
  public Path stagingDirectory() {
    return sibling("-staging");
  }

  /** Where the images Jib pushed are kept as templates for direct pushes: beside the cache. */
  public Path templateDirectory() {
    return sibling("-image-templates");
  }

  private Path sibling(String suffix) {
    Path cache = baseLayerCacheDirectory();
    return cache.resolveSibling(cache.getFileName() + suffix);
  }
}

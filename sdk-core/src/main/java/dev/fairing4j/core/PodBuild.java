package dev.fairing4j.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One image build for a {@link BuildSite}: the context's files by their names in it, which of
 * them is the Dockerfile, the build arguments, where the image goes (as the build pod reaches
 * the registry), the credentials for it, and the executor image that builds.
 *
 * @param files the build context: each file by its relative path in the context
 * @param dockerfile the relative path of the Dockerfile among {@code files}
 * @param buildArgs {@code --build-arg} values
 * @param destination where the image is pushed: registry, repository and tag
 * @param extraTags tags pushed besides the destination's
 * @param credentials for the destination registry (and a base in it), if it needs any
 * @param insecureRegistry whether the registries may be reached over plain HTTP
 * @param executorImage the Kaniko executor image the pod runs
 * @param namespace the namespace of the pod; empty for the site's default
 * @param timeout how long the whole build may take before it is stopped and removed
 */
public record PodBuild(SortedMap<String, ContextFile> files, String dockerfile,
    Map<String, String> buildArgs, ImageRef destination, List<String> extraTags,
    Optional<RegistryCredentials> credentials, boolean insecureRegistry, String executorImage,
    Optional<String> namespace, Duration timeout) {

  /** Copies the collections and checks that the Dockerfile is among the files. */
  public PodBuild {
    files = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(files));
    buildArgs = Map.copyOf(buildArgs);
    extraTags = List.copyOf(extraTags);
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(credentials, "credentials");
    Objects.requireNonNull(executorImage, "executorImage");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(timeout, "timeout");
    if (!files.containsKey(dockerfile)) {
      throw new IllegalArgumentException("the Dockerfile " + dockerfile + " is not in the context");
    }
  }

  /** Names the destination and the file count; never a credential or a build argument value. */
  @Override
  public String toString() {
    return "PodBuild[" + destination + ", " + files.size() + " files, dockerfile=" + dockerfile
        + ", buildArgs=" + new TreeMap<>(buildArgs).keySet() + ", executor=" + executorImage
        + credentials.map(c -> ", credentials for " + c.registry()).orElse("") + "]";
  }
}

package dev.fairing4j.core;

/**
 * The second stage of a pipeline: turns a {@link BuildContext} into an image in a registry (or
 * another target) and returns its pinned reference.
 */
public interface ImageBuilder {
  /**
   * The image a build of {@code context} would produce, without building or contacting anything:
   * the target repository with the tag derived from the context digest. {@code dryRun()} shows it.
   */
  ImageRef plannedImage(BuildContext context);

  /**
   * Checks the builder's own configuration against {@code context} before any network call;
   * throws {@link InvalidInputException}. The default checks nothing.
   */
  default void validate(BuildContext context) {}

  /**
   * What a container of the image built from {@code prepared} holds and runs: its files, command,
   * arguments, working directory, environment and labels. Deployers render pods from it. The
   * default is {@code prepared} itself: a builder that adds the context to a base changes
   * nothing. A builder that reads a Dockerfile returns what the Dockerfile makes of it. Reads
   * files but contacts nothing.
   *
   * @throws InvalidInputException when {@code prepared} and the builder's own input disagree
   */
  default BuildContext imageContext(BuildContext prepared) {
    return prepared;
  }

  /**
   * What a cluster that runs contexts without an image (the local cluster) should run for
   * {@code prepared}: {@link #imageContext} unless the image needs steps that only an image build
   * can take (a Dockerfile's {@code RUN}), which this refuses with the reason.
   *
   * @throws InvalidInputException when the image cannot be stood in for by its context
   */
  default BuildContext directContext(BuildContext prepared) {
    return imageContext(prepared);
  }

  /**
   * Builds and pushes the image, reporting steps and bytes to {@code progress}; returns the
   * reference with its digest.
   */
  ImageRef build(BuildContext context, ProgressListener progress);

  /**
   * Whether this builder names where the image goes (a registry, a tar, a Docker engine). One
   * that does not can still build into a cluster's own image store: {@link #intoLocalStore}.
   * The default is true.
   */
  default boolean hasTarget() {
    return true;
  }

  /**
   * This builder with {@code store} as its target, for a cluster that runs images from its own
   * store ({@code Clusters.podman()}); the pipeline uses it when {@link #hasTarget()} is false.
   * The default refuses: a builder of your own needs a target.
   *
   * @throws InvalidInputException naming {@code pushTo}
   */
  default ImageBuilder intoLocalStore(LocalImageStore store) {
    throw InvalidInputException.of("pushTo", "this builder names no registry and cannot build"
        + " into " + store.describe(), "add .pushTo(\"<registry>/<repository>\") to the builder");
  }

  /**
   * The credentials a cluster needs to pull what this builder pushes, when the target registry
   * is private and the builder was given explicit credentials. The pipeline hands them to the
   * deployer, which turns them into an image-pull Secret. Empty by default.
   */
  default java.util.Optional<RegistryCredentials> pullCredentials() {
    return java.util.Optional.empty();
  }
}

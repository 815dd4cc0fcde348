package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.image.BaseImage;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The front door to image builders: how a pipeline turns its build context into an image.
 *
 * <pre>{@code
 * Builders.jib("pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime")
 *     .pushTo("registry.example.com/team/mnist")
 * Builders.jibFromTar(Path.of("base.tar")).toTar(Path.of("app.tar"))  // docker-save in and out
 * Builders.scratch().pushTo("127.0.0.1:5000/tools/static")
 * Builders.dockerfile(Path.of("Dockerfile")).pushTo("registry.example.com/team/mnist")
 * }</pre>
 */
public final class Builders {
  private Builders() {}

  /**
   * A Jib builder on {@code baseImage}, a registry reference such as {@code python:3.11-slim} or
   * {@code registry.example.com/base@sha256:...} (a digest pins it exactly). A base without a
   * registry host is a Docker Hub image, as with docker ({@code python:3.11} is
   * {@code docker.io/library/python:3.11}): bases are read, never written, and public bases are
   * what short names are for. The target of {@link JibImageBuilder#pushTo} must name its
   * registry.
   */
  public static JibImageBuilder jib(String baseImage) {
    return JibImageBuilder.on(new BaseImage.FromRegistry(
        JibImageBuilder.parse("baseImage", baseImage)));
  }

  /**
   * A Jib builder on a {@code docker save} archive (Jib cannot read OCI archives or layouts;
   * convert those with {@code skopeo copy oci-archive:in.tar docker-archive:out.tar}).
   */
  public static JibImageBuilder jibFromTar(Path dockerSaveTar) {
    return JibImageBuilder.on(new BaseImage.FromDockerTar(
        Objects.requireNonNull(dockerSaveTar, "dockerSaveTar").toAbsolutePath().normalize()));
  }

  /**
   * A builder that reads {@code dockerfile} (Fairing's {@code docker} builder, without a daemon):
   * its {@code FROM} is the base, its instructions apply to the pipeline's build context. One
   * without {@code RUN} is built by Jib; see {@link DockerfileImageBuilder} for what each
   * instruction does.
   *
   * @throws dev.fairing4j.core.InvalidInputException (field {@code dockerfile}) when the file
   *     does not exist or cannot be read
   */
  public static DockerfileImageBuilder dockerfile(Path dockerfile) {
    return DockerfileImageBuilder.of(dockerfile);
  }

  /**
   * A builder that builds inside a cluster, in a Kaniko pod (Fairing's {@code cluster} builder),
   * e.g. {@code Builders.inCluster(Clusters.kubernetes()).dockerfile(Path.of("Dockerfile"))
   * .pushTo("registry.example.com/team/mnist")}; see {@link InClusterImageBuilder}.
   */
  public static InClusterImageBuilder inCluster(dev.fairing4j.core.BuildSite site) {
    return InClusterImageBuilder.on(site);
  }

  /** A Jib builder on an empty base: the image holds only the context's files. */
  public static JibImageBuilder scratch() {
    return JibImageBuilder.on(new BaseImage.Scratch());
  }
}

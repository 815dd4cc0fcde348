package dev.fairing4j.builder;

/**
 * What builds a Dockerfile: chosen with {@link DockerfileImageBuilder#tool(DockerfileTool)}.
 */
public enum DockerfileTool {
  /**
   * Jib when every instruction allows it (no tool, reproducible), else buildah, else podman,
   * whichever this machine has; a build that needs a tool and finds none fails before any work.
   */
  AUTO,
  /** Jib only: a step Jib cannot take is refused. */
  JIB,
  /** {@code buildah bud}, daemonless, with its layer cache. */
  BUILDAH,
  /** {@code podman build}, daemonless, with its layer cache. */
  PODMAN
}

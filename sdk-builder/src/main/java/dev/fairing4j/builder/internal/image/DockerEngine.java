package dev.fairing4j.builder.internal.image;

import dev.fairing4j.builder.ImageBuildException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Whether a Docker engine is there to load images into. Asks {@code docker info}, which talks to
 * the engine: the docker CLI can be installed without one, so finding the binary proves nothing.
 */
final class DockerEngine {
  private DockerEngine() {}

  static void requireRunning() {
    String problem;
    try {
      Process info = new ProcessBuilder("docker", "info", "--format", "{{.ServerVersion}}")
          .redirectErrorStream(true).start();
      info.getOutputStream().close();
      boolean finished = info.waitFor(20, TimeUnit.SECONDS);
      String output = new String(info.getInputStream().readNBytes(2000)).trim();
      if (finished && info.exitValue() == 0 && !output.isEmpty()) {
        return;
      }
      if (!finished) {
        info.destroyForcibly();
      }
      problem = finished ? "docker info failed: " + output : "docker info did not answer in 20 s";
    } catch (IOException e) {
      problem = "the docker command is not installed (" + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem = "interrupted while asking docker info";
    }
    throw ImageBuildException.of("load image into Docker", "docker", "no Docker engine answers: "
        + problem, "start the Docker engine (docker info must work), or push to a registry"
        + " with pushTo(..) or write a tar with toTar(..)", null, null);
  }
}

package dev.fairing4j.examples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@code buildah} the way the benchmark compares against: vfs storage (what works without
 * fuse-overlayfs or kernel overlay support, e.g. in a container) in a storage root of the
 * benchmark's own, so it never mixes with the machine's podman/buildah images.
 */
final class Buildah {
  private final Path root;

  /** Uses {@code root}/storage and {@code root}/run as buildah's storage and run roots. */
  Buildah(Path root) {
    this.root = root;
  }

  /** Runs {@code buildah <global options> args...}; fails with its output on a non-zero exit. */
  String run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("buildah", "--root",
        root.resolve("storage").toString(), "--runroot", root.resolve("run").toString(),
        "--storage-driver", "vfs"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = process.waitFor();
    if (exit != 0) {
      throw new IOException(String.join(" ", command) + " failed (exit " + exit + "):\n" + output);
    }
    return output;
  }

  /** Removes working containers a previous, interrupted run left behind. */
  void removeContainers() throws IOException, InterruptedException {
    run("rm", "--all");
  }
}

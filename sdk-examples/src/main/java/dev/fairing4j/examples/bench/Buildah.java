package dev.fairing4j.examples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@code buildah} the way the benchmark compares against, in a storage root of the
 * benchmark's own, so it never mixes with the machine's podman/buildah images: with the vfs
 * driver (what works without fuse-overlayfs or kernel overlay support, e.g. in a container; it
 * copies the whole base for every build) or with the overlay driver (kernel overlayfs, the
 * fastest a user of a daemonless builder gets where the kernel allows it).
 */
final class Buildah {
  private final Path root;
  private final String driver;
  private final String storage;
  private final String run;

  /** vfs: {@code root}/storage and {@code root}/run as buildah's storage and run roots. */
  Buildah(Path root) {
    this(root, "vfs");
  }

  /**
   * {@code driver} ({@code vfs} or {@code overlay}); each driver has roots of its own, as one
   * storage root holds one driver's layers only.
   */
  Buildah(Path root, String driver) {
    this.root = root;
    this.driver = driver;
    this.storage = driver.equals("vfs") ? "storage" : driver + "-storage";
    this.run = driver.equals("vfs") ? "run" : driver + "-run";
  }

  /** The storage driver. */
  String driver() {
    return driver;
  }

  /** Runs {@code buildah <global options> args...}; fails with its output on a non-zero exit. */
  String run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("buildah", "--root",
        root.resolve(storage).toString(), "--runroot", root.resolve(run).toString(),
        "--storage-driver", driver));
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

  /**
   * Why this driver cannot work here (empty when it can): mounts a scratch container, which
   * needs the kernel's overlayfs and the right to mount for {@code overlay}.
   */
  java.util.Optional<String> unavailable() {
    try {
      String container = run("from", "scratch").trim();
      try {
        run("mount", container);
        run("umount", container);
      } finally {
        run("rm", container);
      }
      return java.util.Optional.empty();
    } catch (IOException e) {
      return java.util.Optional.of(e.getMessage().lines().reduce((a, b) -> b).orElse("failed"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return java.util.Optional.of("interrupted");
    }
  }
}

package dev.fairing4j.core;

import java.nio.file.Path;

/**
 * The image store of a cluster on this machine ({@code Clusters.podman()}'s storage), which runs
 * images from it without a registry: a pipeline whose builder names no registry
 * ({@link ImageBuilder#hasTarget()} is false) builds into it instead of refusing to build. A
 * cluster offers one through {@link Deployer#localImageStore()}.
 */
public interface LocalImageStore {
  /**
   * Loads the image in {@code dockerArchive} (a {@code docker save} tar) so that
   * {@code name} names it in the store.
   *
   * @throws FairingException when the store refuses the archive
   */
  void load(Path dockerArchive, ImageRef name);

  /** The store, for messages: {@code podman's image storage}. */
  String describe();
}

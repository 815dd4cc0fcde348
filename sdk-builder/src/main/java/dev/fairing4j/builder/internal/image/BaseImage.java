package dev.fairing4j.builder.internal.image;

import dev.fairing4j.core.ImageRef;
import java.nio.file.Path;
import java.util.Objects;

/** What an image is built on: an image in a registry, a {@code docker save} tar, or nothing. */
public sealed interface BaseImage {

  /** A short description for messages and {@code toString()}. */
  String describe();

  /** An image in a registry, by tag or digest. */
  record FromRegistry(ImageRef image) implements BaseImage {
    /** Checks the reference. */
    public FromRegistry {
      Objects.requireNonNull(image, "image");
    }

    @Override
    public String describe() {
      return image.toString();
    }
  }

  /** A {@code docker save} archive on disk. */
  record FromDockerTar(Path tar) implements BaseImage {
    /** Checks the path. */
    public FromDockerTar {
      Objects.requireNonNull(tar, "tar");
    }

    @Override
    public String describe() {
      return "tar:" + tar.getFileName();
    }
  }

  /** An empty base: the image holds only its own layers. */
  record Scratch() implements BaseImage {
    @Override
    public String describe() {
      return "scratch";
    }
  }
}

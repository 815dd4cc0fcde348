package dev.fairing4j.builder.internal.image;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.LocalImageStore;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * A builder without a registry target, building into a cluster's own image store (podman's):
 * the image is written as a {@code docker load} tar by the same builder's tar target, loaded into
 * the store, and the tar removed. The image is named {@code localhost/fairing4j/image:<content
 * tag>}, the tag a build of the same context always gets, and runs by that name: no registry, no
 * push, no pull.
 */
public final class LocalStoreBuild implements ImageBuilder {
  private final ImageBuilder original;
  private final Function<Path, ImageBuilder> toTar;
  private final LocalImageStore store;

  /**
   * @param original the builder as the user configured it
   * @param toTar the same builder writing to a tar at the given path
   * @param store where the image goes
   */
  public LocalStoreBuild(ImageBuilder original, Function<Path, ImageBuilder> toTar,
      LocalImageStore store) {
    this.original = original;
    this.toTar = toTar;
    this.store = store;
  }

  private ImageBuilder planning() {
    return toTar.apply(Path.of(System.getProperty("java.io.tmpdir"), "fairing4j-image.tar"));
  }

  @Override
  public ImageRef plannedImage(BuildContext context) {
    return withoutDigest(planning().plannedImage(context));
  }

  @Override
  public void validate(BuildContext context) {
    planning().validate(context);
  }

  @Override
  public BuildContext imageContext(BuildContext prepared) {
    return original.imageContext(prepared);
  }

  @Override
  public BuildContext directContext(BuildContext prepared) {
    return original.directContext(prepared);
  }

  @Override
  public ImageRef build(BuildContext context, ProgressListener progress) {
    Path tar;
    try {
      tar = Files.createTempFile("fairing4j-image", ".tar");
    } catch (IOException e) {
      throw FairingException.of("build image", "cannot create a file for the image tar: "
          + e.getMessage(), "check free space in " + System.getProperty("java.io.tmpdir"));
    }
    try {
      // The tag is the content's: loaded by that name, the image runs by it.
      ImageRef built = withoutDigest(toTar.apply(tar).build(context, progress));
      store.load(tar, built);
      progress.onEvent(new ProgressEvent.Note("loaded " + built + " into " + store.describe()
          + " (no registry: pushTo(..) names one)"));
      return built;
    } finally {
      try {
        Files.deleteIfExists(tar);
      } catch (IOException e) {
        // a temporary tar left behind is removed with the temp directory
      }
    }
  }

  private static ImageRef withoutDigest(ImageRef ref) {
    return new ImageRef(ref.registry(), ref.repository(), ref.tag(), java.util.Optional.empty());
  }

  @Override
  public String toString() {
    return original + " into " + store.describe();
  }
}

package dev.fairing4j.deployer.local;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.LocalImageStore;
import dev.fairing4j.deployer.local.internal.runtime.PodmanTool;
import dev.fairing4j.deployer.local.internal.settings.PodmanSettings;
import java.nio.file.Path;

/**
 * Podman's image storage as the target of a pipeline without a registry: the image built as a
 * tar is loaded with {@code podman load} (through the SDK's containers.conf), and the podman
 * cluster runs it from there, pulling nothing.
 */
final class PodmanImageStore implements LocalImageStore {
  private final PodmanSettings settings;

  PodmanImageStore(PodmanSettings settings) {
    this.settings = settings;
  }

  @Override
  public void load(Path dockerArchive, ImageRef name) {
    PodmanTool tool = PodmanTool.resolve(settings);
    tool.load(dockerArchive);
    if (!tool.imageExists(name.reference())) {
      throw FairingException.of("load image into podman", name.reference(), "podman loaded "
          + dockerArchive.getFileName() + " but has no image of that name",
          "check that the tar names the image (podman load -i " + dockerArchive + ")", null);
    }
  }

  @Override
  public String describe() {
    return "podman's image storage";
  }

  @Override
  public String toString() {
    return describe();
  }
}

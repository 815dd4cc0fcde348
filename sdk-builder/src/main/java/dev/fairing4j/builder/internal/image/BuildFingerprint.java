package dev.fairing4j.builder.internal.image;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.internal.Sha256;
import java.util.List;

/**
 * A label that says which inputs made an image: the context digest plus everything the builder
 * adds (the exact base, user, format, ports, volumes). The content tag comes from the context
 * alone, so the fingerprint is what proves an existing tag holds the image this build would
 * make, and lets an unchanged rebuild stop after two small reads.
 */
public final class BuildFingerprint {
  /** The image label holding the fingerprint. */
  public static final String LABEL = "dev.fairing4j.builder.fingerprint";
  /**
   * Changes whenever the way images are assembled changes, so an image made by an older layout
   * is rebuilt rather than trusted. Also Jib's tool version, which lands in the image history.
   */
  public static final String LAYOUT_VERSION = "1";

  private BuildFingerprint() {}

  /** {@code sha256:<hex>} over the inputs. */
  public static String of(BuildContext context, String baseIdentity, BuildSettings settings) {
    List<String> parts = new java.util.ArrayList<>(List.of(LAYOUT_VERSION, context.digest(),
        baseIdentity, settings.user().orElse(""), settings.format().name()));
    // Only when declared, so the fingerprints of images without them stay what they were.
    if (settings.declaresPortsOrVolumes()) {
      parts.addAll(settings.portsAndVolumesParts());
    }
    return "sha256:" + Sha256.ofParts(parts);
  }
}

package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.PodTemplate;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Checks a pod template after every mutator ran, so that a hand-written mutator's mistakes
 * (a relative mount path, a mount of an undeclared volume, a malformed quantity) surface before
 * submission with the field and the fix, instead of as an API server rejection.
 */
final class TemplateChecks {
  private TemplateChecks() {}

  static void check(PodTemplate template) {
    Map<String, Object> container = template.container();
    Object image = container.get("image");
    if (!(image instanceof String text) || text.isBlank()) {
      throw InvalidInputException.of("mutate(..)", "left the training container without an image",
          "do not remove the image in a mutator");
    }
    Set<String> volumes = new HashSet<>();
    for (Map<String, Object> volume : Json.maps(template.podSpec().get("volumes"))) {
      String name = Validators.dns1123Label("volume name",
          volume.get("name") instanceof String given ? given : null);
      if (!volumes.add(name)) {
        throw InvalidInputException.of("volume " + name, "is declared twice",
            "give each volume its own name");
      }
    }
    Set<String> paths = new HashSet<>();
    for (Map<String, Object> mount : Json.maps(container.get("volumeMounts"))) {
      Object path = mount.get("mountPath");
      Object name = mount.get("name");
      if (!(path instanceof String mountPath) || !mountPath.startsWith("/")) {
        throw InvalidInputException.of("mountPath", "'" + path + "' (volume " + name
            + ") is not an absolute path", "mount at an absolute container path, e.g. /data");
      }
      if (!paths.add(mountPath)) {
        throw InvalidInputException.of("mountPath", "two volumes are mounted at " + mountPath,
            "mount each volume at its own path");
      }
      if (!volumes.contains(String.valueOf(name))) {
        throw InvalidInputException.of("volumeMount " + mountPath, "mounts volume '" + name
            + "', which the pod does not declare", "add the volume as well as the mount");
      }
    }
    Object resources = container.get("resources");
    if (resources instanceof Map<?, ?> sections) {
      for (String section : new String[] {"requests", "limits"}) {
        if (sections.get(section) instanceof Map<?, ?> amounts) {
          amounts.forEach((resource, amount) -> Validators.quantity(
              "resources." + section + "." + resource, String.valueOf(amount)));
        }
      }
    }
  }
}

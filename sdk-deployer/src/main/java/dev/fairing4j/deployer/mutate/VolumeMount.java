package dev.fairing4j.deployer.mutate;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.PodTemplate;
import dev.fairing4j.deployer.job.internal.Json;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A volume added to the pod and mounted into the training container: a PersistentVolumeClaim, a
 * Secret, a ConfigMap, an emptyDir, a host path, or the memory-backed {@code /dev/shm} that
 * PyTorch data loaders need. Adding it again replaces the volume of the same name and the mount at
 * the same path, so it is idempotent.
 *
 * @param volumeName the pod-level volume name (a DNS-1123 label)
 * @param source the volume source, one key such as {@code persistentVolumeClaim} to its settings
 * @param mountPath the absolute path in the container
 * @param isReadOnly whether the mount is read-only
 * @param subPath a path inside the volume to mount instead of its root
 */
public record VolumeMount(String volumeName, Map<String, Object> source, String mountPath,
    boolean isReadOnly, Optional<String> subPath) implements PodMutator {

  /** Checks the names and paths. */
  public VolumeMount {
    Validators.dns1123Label("volume name", volumeName);
    if (Objects.requireNonNull(source, "source").size() != 1) {
      throw InvalidInputException.of("volume " + volumeName, "has " + source.size()
          + " sources (" + source.keySet() + "); a volume has exactly one",
          "use one of Mutators.pvc, secretVolume, configMapVolume, emptyDir or hostPath");
    }
    source = Map.copyOf(source);
    checkMountPath(mountPath);
    Objects.requireNonNull(subPath, "subPath").ifPresent(VolumeMount::checkSubPath);
  }

  /** The same mount, read-only. */
  public VolumeMount readOnly() {
    return new VolumeMount(volumeName, source, mountPath, true, subPath);
  }

  /** The same mount of {@code path} inside the volume (relative, no {@code ..}). */
  public VolumeMount subPath(String path) {
    return new VolumeMount(volumeName, source, mountPath, isReadOnly, Optional.of(path));
  }

  /** The same mount under another pod-level volume name, e.g. to avoid a clash. */
  public VolumeMount volumeName(String name) {
    return new VolumeMount(name, source, mountPath, isReadOnly, subPath);
  }

  @Override
  public void apply(PodTemplate template) {
    Map<String, Object> volume = Json.map();
    volume.put("name", volumeName);
    volume.putAll(Json.copyMap(source));
    template.putVolume(volume);
    Map<String, Object> mount = Json.map();
    mount.put("name", volumeName);
    mount.put("mountPath", mountPath);
    if (isReadOnly) {
      mount.put("readOnly", true);
    }
    subPath.ifPresent(path -> mount.put("subPath", path));
    template.putVolumeMount(mount);
  }

  static void checkMountPath(String mountPath) {
    Validators.requireText("mountPath", mountPath);
    if (!mountPath.startsWith("/") || mountPath.contains("/../") || mountPath.endsWith("/..")) {
      throw InvalidInputException.of("mountPath", "'" + mountPath + "' is not an absolute path",
          "mount at an absolute container path such as /opt/mnist/models (a relative path has"
              + " no meaning inside the container)");
    }
  }

  private static void checkSubPath(String subPath) {
    Validators.requireText("subPath", subPath);
    if (subPath.startsWith("/") || subPath.equals("..") || subPath.startsWith("../")
        || subPath.contains("/../") || subPath.endsWith("/..")) {
      throw InvalidInputException.of("subPath", "'" + subPath
          + "' must be relative to the volume root", "use a path like models/run1, without"
              + " a leading '/' or '..'");
    }
  }

  @Override
  public String toString() {
    return "volume(" + volumeName + " " + source.keySet().iterator().next() + " at "
        + mountPath + (isReadOnly ? ", ro" : "") + subPath.map(p -> ", subPath=" + p).orElse("")
        + ")";
  }
}

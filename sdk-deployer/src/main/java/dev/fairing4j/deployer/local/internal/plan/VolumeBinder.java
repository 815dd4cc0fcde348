package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.local.internal.runtime.LaunchSpec;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Maps a replica's {@code volumeMounts} to host directories: a PersistentVolumeClaim to the
 * claim's local directory (kept after the job, shared by jobs naming the same claim), an emptyDir
 * to a per-pod directory in the job (or a tmpfs for medium Memory), a hostPath to itself, a
 * ConfigMap or Secret rendered with the job to files written from it.
 */
public final class VolumeBinder {
  private VolumeBinder() {}

  /** The binds for {@code replica}'s container. */
  public static List<LaunchSpec.Bind> binds(JobPlan plan, ReplicaId replica,
      LocalSettings settings, Path jobDir) {
    JobPlan.Pod pod = plan.group(replica.type()).orElseThrow().pod();
    List<LaunchSpec.Bind> binds = new ArrayList<>();
    for (JobPlan.Mount mount : pod.container().mounts()) {
      String field = "volumeMounts[" + mount.name() + "]";
      if (!mount.mountPath().startsWith("/") || mount.mountPath().contains("..")) {
        throw InvalidInputException.of(field + ".mountPath",
            "'" + mount.mountPath() + "' is not an absolute path", "use a path like /opt/data");
      }
      JobPlan.Volume volume = pod.volume(mount.name()).orElseThrow(() -> InvalidInputException
          .of(field, "names no volume of the pod", "declare a volume named '" + mount.name()
              + "' in the pod template"));
      Map<String, Object> source = volume.source();
      Path host;
      boolean readOnly = mount.readOnly();
      if (source.containsKey("persistentVolumeClaim")) {
        String claim = Validators.dns1123Subdomain("claimName",
            Maps.string(source, "persistentVolumeClaim", "claimName").orElse(""));
        host = settings.claimDir(claim);
        readOnly |= Maps.at(source, "persistentVolumeClaim", "readOnly")
            .map(Boolean.TRUE::equals).orElse(false);
      } else if (source.containsKey("emptyDir")) {
        if ("Memory".equals(Maps.string(source, "emptyDir", "medium").orElse(""))) {
          binds.add(new LaunchSpec.Bind(null, mount.mountPath(), false, true));
          continue;
        }
        host = jobDir.resolve("volumes").resolve(replica.podName()).resolve(volume.name());
      } else if (source.containsKey("hostPath")) {
        host = Path.of(Maps.string(source, "hostPath", "path").orElse("/nonexistent"));
        if (!Files.exists(host) && !Maps.string(source, "hostPath", "type").orElse("")
            .endsWith("OrCreate")) {
          throw InvalidInputException.of(field, "hostPath " + host + " does not exist",
              "create it, or use type DirectoryOrCreate");
        }
      } else if (source.containsKey("configMap") || source.containsKey("secret")) {
        host = materialize(plan, replica, volume, jobDir);
        readOnly = true;
      } else {
        throw InvalidInputException.of("volumes[" + volume.name() + "]",
            "the volume type " + source.keySet() + " has no local equivalent",
            "use a persistentVolumeClaim, emptyDir, hostPath, configMap or secret volume");
      }
      if (!mount.subPath().isEmpty()) {
        if (mount.subPath().startsWith("/") || mount.subPath().contains("..")) {
          throw InvalidInputException.of(field + ".subPath", "'" + mount.subPath()
              + "' leaves the volume", "use a relative path inside the volume");
        }
        host = host.resolve(mount.subPath());
      }
      create(host);
      binds.add(new LaunchSpec.Bind(host, mount.mountPath(), readOnly, false));
    }
    return binds;
  }

  private static Path materialize(JobPlan plan, ReplicaId replica, JobPlan.Volume volume,
      Path jobDir) {
    boolean isConfigMap = volume.source().containsKey("configMap");
    String objectName = isConfigMap
        ? Maps.string(volume.source(), "configMap", "name").orElse("")
        : Maps.string(volume.source(), "secret", "secretName").orElse("");
    Map<String, Object> object = plan.object(isConfigMap ? "ConfigMap" : "Secret", objectName)
        .orElseThrow(() -> InvalidInputException.of("volumes[" + volume.name() + "]",
            (isConfigMap ? "ConfigMap '" : "Secret '") + objectName + "' is not among the job's"
                + " rendered objects, and the local cluster has no API server to read it from",
            "render the object with the job"));
    Map<String, byte[]> files = new LinkedHashMap<>();
    Maps.map(object, "data").forEach((k, v) -> files.put(k, isConfigMap
        ? String.valueOf(v).getBytes(StandardCharsets.UTF_8)
        : Base64.getDecoder().decode(String.valueOf(v))));
    Maps.map(object, isConfigMap ? "binaryData" : "stringData").forEach((k, v) -> files.put(k,
        isConfigMap ? Base64.getDecoder().decode(String.valueOf(v))
            : String.valueOf(v).getBytes(StandardCharsets.UTF_8)));
    Path dir = jobDir.resolve("volumes").resolve(replica.podName()).resolve(volume.name());
    try {
      Files.createDirectories(dir);
      for (Map.Entry<String, byte[]> file : files.entrySet()) {
        if (file.getKey().contains("/") || file.getKey().startsWith(".")) {
          continue;
        }
        Files.write(dir.resolve(file.getKey()), file.getValue());
      }
    } catch (IOException e) {
      throw FairingException.of("write volume", dir.toString(), e.getMessage(),
          "check free space in the state directory", e);
    }
    return dir;
  }

  private static void create(Path dir) {
    try {
      if (!Files.exists(dir)) {
        Files.createDirectories(dir);
      }
    } catch (IOException e) {
      throw FairingException.of("create volume directory", dir.toString(), e.getMessage(),
          "check the permissions, or map the claim elsewhere with LocalCluster.volume(..)", e);
    }
  }
}

package dev.fairing4j.deployer;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Sha256;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.mutate.Env;
import dev.fairing4j.deployer.mutate.PodMetadata;
import dev.fairing4j.deployer.mutate.PodSettings;
import dev.fairing4j.deployer.mutate.Resources;
import dev.fairing4j.deployer.mutate.SecurityContext;
import dev.fairing4j.deployer.mutate.Toleration;
import dev.fairing4j.deployer.mutate.VolumeMount;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The common pod-template changes, for {@code deployer.mutate(..)}. Each checks its input when it
 * is created (a typo fails in the line that made it), works on the training container by name,
 * and is idempotent: applying it twice gives the same pod as applying it once.
 *
 * <pre>{@code
 * .mutate(Mutators.resources("2", "4Gi"))
 * .mutate(Mutators.gpus(1))
 * .mutate(Mutators.pvc("training-data", "/mnist_data").readOnly())
 * .mutate(Mutators.sharedMemory("2Gi"))
 * .mutate(Mutators.gpus(1), ReplicaType.PS)   // a TFJob PS gets GPUs only so
 * }</pre>
 */
public final class Mutators {
  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private Mutators() {}

  /**
   * CPU and memory as requests and equal limits; other resources stay. GPUs are
   * {@link #gpus(int)}, the one way to ask for them.
   *
   * @param cpu e.g. {@code "2"} or {@code "500m"}
   * @param memory e.g. {@code "4Gi"}
   */
  public static Resources resources(String cpu, String memory) {
    return new Resources(Optional.of(cpu), Optional.of(memory), 0, Resources.NVIDIA_GPU);
  }

  /**
   * {@code count} GPUs per pod as limits of {@code nvidia.com/gpu} ({@code .amd()} for
   * {@code amd.com/gpu}); CPU and memory stay. A TFJob's parameter servers get GPUs only when
   * targeted: {@code .mutate(Mutators.gpus(1), ReplicaType.PS)}.
   */
  public static Resources gpus(int count) {
    return new Resources(Optional.empty(), Optional.empty(), count, Resources.NVIDIA_GPU);
  }

  /**
   * Mounts PersistentVolumeClaim {@code claim} at {@code mountPath}; {@code .readOnly()} and
   * {@code .subPath(..)} refine it. The volume is named after the claim.
   */
  public static VolumeMount pvc(String claim, String mountPath) {
    Validators.dns1123Subdomain("claim", claim);
    return new VolumeMount(volumeName("", claim), Map.of("persistentVolumeClaim",
        Map.of("claimName", claim)), mountPath, false, Optional.empty());
  }

  /** Mounts Secret {@code secret} (its keys as files) read-only at {@code mountPath}. */
  public static VolumeMount secretVolume(String secret, String mountPath) {
    Validators.dns1123Subdomain("secret", secret);
    return new VolumeMount(volumeName("secret-", secret), Map.of("secret",
        Map.of("secretName", secret)), mountPath, true, Optional.empty());
  }

  /** Mounts ConfigMap {@code configMap} (its keys as files) read-only at {@code mountPath}. */
  public static VolumeMount configMapVolume(String configMap, String mountPath) {
    Validators.dns1123Subdomain("configMap", configMap);
    return new VolumeMount(volumeName("configmap-", configMap), Map.of("configMap",
        Map.of("name", configMap)), mountPath, false, Optional.empty()).readOnly();
  }

  /** An empty scratch directory named {@code name} at {@code mountPath}, gone with the pod. */
  public static VolumeMount emptyDir(String name, String mountPath) {
    return new VolumeMount(Validators.dns1123Label("emptyDir name", name), Map.of("emptyDir",
        Map.of()), mountPath, false, Optional.empty());
  }

  /**
   * The node's directory {@code hostPath} at {@code mountPath}, created if missing. Ties the pod
   * to what is on that node: for single-node clusters and tests.
   */
  public static VolumeMount hostPath(String hostPath, String mountPath) {
    Validators.requireText("hostPath", hostPath);
    if (!hostPath.startsWith("/")) {
      throw InvalidInputException.of("hostPath", "'" + hostPath + "' is not an absolute path",
          "give the node's directory as an absolute path, e.g. /mnt/data");
    }
    return new VolumeMount(volumeName("host-", hostPath), Map.of("hostPath",
        ordered("path", hostPath, "type", "DirectoryOrCreate")), mountPath, false,
        Optional.empty());
  }

  /**
   * A memory-backed {@code /dev/shm} of {@code size} (e.g. {@code "2Gi"}): the container
   * default of 64 MiB breaks PyTorch DataLoader workers and NCCL.
   */
  public static VolumeMount sharedMemory(String size) {
    return new VolumeMount("dshm", Map.of("emptyDir", ordered("medium", "Memory",
        "sizeLimit", Validators.quantity("sharedMemory", size))), "/dev/shm", false,
        Optional.empty());
  }

  /**
   * An environment variable read from {@code key} of Secret {@code secret}, so the value never
   * appears in the manifest. A literal value is the deployer's {@code env(name, value)}; one
   * baked into the image is the preprocessor's {@code env(name, value)}.
   */
  public static Env envFromSecret(String name, String secret, String key) {
    return new Env(name, Optional.empty(), Optional.of(secret), Optional.of(key));
  }

  /** Pods only on nodes labelled {@code key=value}. */
  public static PodSettings nodeSelector(String key, String value) {
    return PodSettings.nodeSelector(Map.of(key, value));
  }

  /** Pods only on nodes with all these labels. */
  public static PodSettings nodeSelector(Map<String, String> labels) {
    return PodSettings.nodeSelector(labels);
  }

  /** Tolerates taint {@code key=value:effect}. */
  public static Toleration toleration(String key, String value, String effect) {
    return new Toleration(key, "Equal", Optional.of(value), Optional.of(effect));
  }

  /** Tolerates any taint with {@code key} and {@code effect}, e.g. {@code nvidia.com/gpu}. */
  public static Toleration tolerationExists(String key, String effect) {
    return new Toleration(key, "Exists", Optional.empty(), Optional.of(effect));
  }

  /** The pod's affinity, as Kubernetes' {@code affinity} object (maps and lists). */
  public static PodSettings affinity(Map<String, ?> affinity) {
    return PodSettings.affinity(affinity);
  }

  /** Secrets (of type dockerconfigjson) used to pull the image. */
  public static PodSettings imagePullSecrets(String... secrets) {
    return PodSettings.imagePullSecrets(Arrays.asList(secrets));
  }

  /** The ServiceAccount the pods run as. */
  public static PodSettings serviceAccount(String name) {
    return PodSettings.serviceAccount(name);
  }

  /** The pods' PriorityClass. */
  public static PodSettings priorityClass(String name) {
    return PodSettings.priorityClass(name);
  }

  /** Labels on the pods. */
  public static PodMetadata labels(Map<String, String> labels) {
    return new PodMetadata(labels, Map.of());
  }

  /** Annotations on the pods. */
  public static PodMetadata annotations(Map<String, String> annotations) {
    return new PodMetadata(Map.of(), annotations);
  }

  /**
   * A security context to fill in: {@code securityContext().runAsUser(1000).runAsNonRoot()
   * .fsGroup(100).readOnlyRootFilesystem()}.
   */
  public static SecurityContext securityContext() {
    return SecurityContext.empty();
  }

  /** Several mutators as one, applied in order. */
  public static PodMutator all(PodMutator... mutators) {
    List<PodMutator> list = List.of(mutators);
    return template -> list.forEach(mutator -> mutator.apply(template));
  }

  // A volume name is a DNS-1123 label; claim and secret names may be longer subdomains with dots.
  // Use the name as is when it fits, else a readable prefix plus a hash that keeps it unique.
  private static String volumeName(String prefix, String source) {
    String plain = prefix + source;
    if (plain.length() <= Validators.MAX_LABEL && DNS1123_LABEL.matcher(plain).matches()) {
      return plain;
    }
    String cleaned = plain.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-")
        .replaceAll("^-+", "");
    String hash = sha256(source).substring(0, 8);
    String head = cleaned.substring(0, Math.min(cleaned.length(), 50)).replaceAll("-+$", "");
    return (head.isEmpty() ? "vol" : head) + "-" + hash;
  }

  // Two-entry maps in a fixed order: Map.of iterates in an order that changes from JVM to JVM,
  // and a dry run must print the same bytes every time.
  private static Map<String, Object> ordered(String k1, Object v1, String k2, Object v2) {
    Map<String, Object> map = new java.util.LinkedHashMap<>();
    map.put(k1, v1);
    map.put(k2, v2);
    return java.util.Collections.unmodifiableMap(map);
  }

  private static String sha256(String text) {
    return Sha256.hex(text);
  }
}

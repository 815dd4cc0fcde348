package dev.fairing4j.deployer.job;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.Json;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One pod template of a job while its {@link PodMutator}s run: a live, mutable view over the
 * template exactly as it will be sent (plain maps and lists in Kubernetes' JSON shape), plus where
 * it belongs: the job kind, the replica type, and whether the mutator named that type explicitly.
 *
 * <p>The {@code put}/{@code add} helpers are idempotent (they replace by name, mount path or key, and
 * never append a duplicate), so mutators built on them are idempotent too. Values handed in are
 * copied, so one mutator instance can safely be applied to many templates.
 */
public final class PodTemplate {
  private final String jobKind;
  private final Optional<ReplicaType> replicaType;
  private final boolean targetedExplicitly;
  private final String containerName;
  private final Map<String, Object> template;

  private PodTemplate(String jobKind, Optional<ReplicaType> replicaType,
      boolean targetedExplicitly, String containerName, Map<String, Object> template) {
    this.jobKind = Objects.requireNonNull(jobKind, "jobKind");
    this.replicaType = Objects.requireNonNull(replicaType, "replicaType");
    this.targetedExplicitly = targetedExplicitly;
    this.containerName = Objects.requireNonNull(containerName, "containerName");
    this.template = Objects.requireNonNull(template, "template");
  }

  /**
   * A view over {@code template} (a {@code PodTemplateSpec} as mutable maps and lists; it is
   * changed in place). Deployers create these; use it directly to unit-test a mutator.
   *
   * @param jobKind {@code PyTorchJob}, {@code TFJob} or {@code Job}
   * @param replicaType the replica type this template is for; empty for a batch Job
   * @param targetedExplicitly true when the mutator was given for this replica type by name
   * @param containerName the training container's name, e.g. {@code pytorch}
   */
  public static PodTemplate of(String jobKind, Optional<ReplicaType> replicaType,
      boolean targetedExplicitly, String containerName, Map<String, Object> template) {
    return new PodTemplate(jobKind, replicaType, targetedExplicitly, containerName, template);
  }

  /** The job kind: {@code PyTorchJob}, {@code TFJob} or {@code Job}. */
  public String jobKind() {
    return jobKind;
  }

  /** The replica type this template is for; empty for a batch Job. */
  public Optional<ReplicaType> replicaType() {
    return replicaType;
  }

  /**
   * True when the mutator was attached to this replica type by name ({@code mutate(m, PS)}),
   * false when it applies to every replica. {@link dev.fairing4j.deployer.Mutators#resources} uses
   * it to keep GPUs off
   * TFJob parameter servers unless asked.
   */
  public boolean targetedExplicitly() {
    return targetedExplicitly;
  }

  /** The name of the container that runs the training code. */
  public String containerName() {
    return containerName;
  }

  /** The template's {@code metadata}, live. */
  public Map<String, Object> metadata() {
    return Json.child(template, "metadata");
  }

  /** The pod {@code spec}, live. */
  public Map<String, Object> podSpec() {
    return Json.child(template, "spec");
  }

  /**
   * The training container (found by name, not position), live.
   *
   * @throws InvalidInputException when an earlier mutator removed or renamed it
   */
  public Map<String, Object> container() {
    for (Map<String, Object> container : Json.maps(podSpec().get("containers"))) {
      if (containerName.equals(container.get("name"))) {
        return container;
      }
    }
    throw InvalidInputException.of("mutate(..)", "the training container '" + containerName
        + "' is missing from the " + where() + " pod template",
        "do not remove or rename the training container in a mutator; add sidecars instead");
  }

  /** Sets a label on the pod. */
  public PodTemplate putLabel(String key, String value) {
    Json.child(metadata(), "labels").put(key, Objects.requireNonNull(value, "label value"));
    return this;
  }

  /** Sets an annotation on the pod. */
  public PodTemplate putAnnotation(String key, String value) {
    Json.child(metadata(), "annotations").put(key,
        Objects.requireNonNull(value, "annotation value"));
    return this;
  }

  /** Sets a literal environment variable in the training container, replacing one of that name. */
  public PodTemplate putEnv(String name, String value) {
    return putEnvEntry(name, "value", Objects.requireNonNull(value, "env value"));
  }

  /**
   * Sets an environment variable from a source ({@code secretKeyRef}, {@code fieldRef}, ...),
   * given as the {@code valueFrom} object, replacing one of that name.
   */
  public PodTemplate putEnvFrom(String name, Map<String, ?> valueFrom) {
    return putEnvEntry(name, "valueFrom", Json.copyMap(valueFrom));
  }

  /**
   * Sets one resource of the training container, e.g. {@code ("limits", "nvidia.com/gpu", "1")},
   * leaving every other resource as it is.
   *
   * @param section {@code requests} or {@code limits}
   */
  public PodTemplate putResource(String section, String resource, String quantity) {
    if (!section.equals("requests") && !section.equals("limits")) {
      throw new IllegalArgumentException("section must be requests or limits: " + section);
    }
    Json.child(Json.child(container(), "resources"), section).put(resource,
        Objects.requireNonNull(quantity, "quantity"));
    return this;
  }

  /** Adds a pod volume, replacing a volume of the same name. */
  public PodTemplate putVolume(Map<String, ?> volume) {
    return putNamed(Json.list(podSpec(), "volumes"), Json.copyMap(volume), "name");
  }

  /** Adds a mount to the training container, replacing a mount at the same mount path. */
  public PodTemplate putVolumeMount(Map<String, ?> mount) {
    return putNamed(Json.list(container(), "volumeMounts"), Json.copyMap(mount), "mountPath");
  }

  /** Adds a toleration unless an equal one is there. */
  public PodTemplate addToleration(Map<String, ?> toleration) {
    return addUnique(Json.list(podSpec(), "tolerations"), Json.copyMap(toleration));
  }

  /** Adds an image-pull Secret by name unless it is listed. */
  public PodTemplate addImagePullSecret(String secretName) {
    return addUnique(Json.list(podSpec(), "imagePullSecrets"), Json.copyMap(Map.of("name",
        secretName)));
  }

  /** Sets a field of the pod spec, e.g. {@code serviceAccountName}, replacing its value. */
  public PodTemplate putPodField(String key, Object value) {
    podSpec().put(key, Json.copy(Objects.requireNonNull(value, key)));
    return this;
  }

  /** Merges {@code fields} into the object at pod spec field {@code key}, key by key. */
  public PodTemplate mergePodField(String key, Map<String, ?> fields) {
    Json.child(podSpec(), key).putAll(Json.copyMap(fields));
    return this;
  }

  /** Sets a field of the training container, replacing its value. */
  public PodTemplate putContainerField(String key, Object value) {
    container().put(key, Json.copy(Objects.requireNonNull(value, key)));
    return this;
  }

  /** Merges {@code fields} into the object at container field {@code key}, key by key. */
  public PodTemplate mergeContainerField(String key, Map<String, ?> fields) {
    Json.child(container(), key).putAll(Json.copyMap(fields));
    return this;
  }

  /**
   * Kubernetes' (relaxed, 1.30+) rule for variable names: non-blank printable ASCII without '='.
   * A control character (a newline pasted with the name) is refused by the API server only after
   * the image has been pushed, so it is refused here.
   */
  static boolean isEnvName(String name) {
    if (name == null || name.isBlank() || name.contains("=")) {
      return false;
    }
    return name.chars().allMatch(c -> c >= 0x20 && c <= 0x7e);
  }

  private PodTemplate putEnvEntry(String name, String valueKey, Object value) {
    if (!isEnvName(name)) {
      throw InvalidInputException.of("env name", "'" + name + "' is not a variable name",
          "use printable ASCII without '=', e.g. EPOCHS");
    }
    Map<String, Object> entry = Json.map();
    entry.put("name", name);
    entry.put(valueKey, value);
    return putNamed(Json.list(container(), "env"), entry, "name");
  }

  private PodTemplate putNamed(List<Object> list, Map<String, Object> item, String key) {
    Object id = item.get(key);
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i) instanceof Map<?, ?> existing && Objects.equals(existing.get(key), id)) {
        list.set(i, item);
        return this;
      }
    }
    list.add(item);
    return this;
  }

  private PodTemplate addUnique(List<Object> list, Object item) {
    if (!list.contains(item)) {
      list.add(item);
    }
    return this;
  }

  private String where() {
    return replicaType.map(type -> jobKind + " " + type.specName()).orElse(jobKind);
  }

  @Override
  public String toString() {
    return "PodTemplate[" + where() + ", container=" + containerName + "]";
  }
}

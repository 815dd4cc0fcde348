package dev.fairing4j.deployer.mutate;

import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.PodTemplate;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.job.internal.Metadata;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Pod-level settings that are a plain value: node selector labels (merged), affinity (replaced),
 * image-pull Secrets (added once), ServiceAccount and PriorityClass (replaced).
 *
 * @param field the pod spec field
 * @param value its value, in Kubernetes' JSON shape
 * @param merge whether a map value is merged key by key (node selector) rather than replaced
 */
public record PodSettings(String field, Object value, boolean merge) implements PodMutator {

  /** Copies the value. */
  public PodSettings {
    Validators.requireText("field", field);
    value = freeze(Json.copy(Objects.requireNonNull(value, field)));
  }

  /** Node labels a pod must match. */
  public static PodSettings nodeSelector(Map<String, String> labels) {
    labels.forEach(Metadata::checkLabel);
    return new PodSettings("nodeSelector", labels, true);
  }

  /** The pod's affinity, as Kubernetes' {@code affinity} object. */
  public static PodSettings affinity(Map<String, ?> affinity) {
    return new PodSettings("affinity", affinity, false);
  }

  /** Secrets used to pull the image. */
  public static PodSettings imagePullSecrets(List<String> names) {
    names.forEach(name -> Validators.dns1123Subdomain("imagePullSecrets", name));
    return new PodSettings("imagePullSecrets", names, false);
  }

  /** The pod's ServiceAccount. */
  public static PodSettings serviceAccount(String name) {
    return new PodSettings("serviceAccountName",
        Validators.dns1123Subdomain("serviceAccount", name), false);
  }

  /** The pod's PriorityClass. */
  public static PodSettings priorityClass(String name) {
    return new PodSettings("priorityClassName",
        Validators.dns1123Subdomain("priorityClass", name), false);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void apply(PodTemplate template) {
    if (field.equals("imagePullSecrets")) {
      ((List<String>) value).forEach(template::addImagePullSecret);
    } else if (merge) {
      template.mergePodField(field, (Map<String, ?>) value);
    } else {
      template.putPodField(field, value);
    }
  }

  // The record is a value: nobody may change it through the map or list it hands out.
  private static Object freeze(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put(String.valueOf(k), freeze(v)));
      return Collections.unmodifiableMap(copy);
    }
    if (value instanceof List<?> list) {
      return list.stream().map(PodSettings::freeze).toList();
    }
    return value;
  }

  @Override
  public String toString() {
    return field + "(" + value + ")";
  }
}

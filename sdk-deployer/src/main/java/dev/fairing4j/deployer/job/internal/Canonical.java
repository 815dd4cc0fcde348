package dev.fairing4j.deployer.job.internal;

import java.util.List;
import java.util.Map;

/**
 * Puts the keys of pod templates into one fixed order, whatever order mutators added them in,
 * so equal configurations give byte-equal YAML and a reader finds fields where kubectl shows
 * them.
 */
final class Canonical {
  private static final List<String> OBJECT = List.of("apiVersion", "kind", "metadata", "spec");
  private static final List<String> METADATA =
      List.of("name", "generateName", "namespace", "labels", "annotations");
  private static final List<String> TEMPLATE = List.of("metadata", "spec");
  private static final List<String> POD_SPEC = List.of("subdomain", "restartPolicy",
      "serviceAccountName", "priorityClassName", "securityContext", "imagePullSecrets",
      "initContainers", "containers", "volumes", "nodeSelector", "affinity", "tolerations");
  private static final List<String> CONTAINER = List.of("name", "image", "imagePullPolicy",
      "command", "args", "workingDir", "ports", "envFrom", "env", "resources", "volumeMounts",
      "securityContext");
  private static final List<String> RESOURCES = List.of("requests", "limits");

  private Canonical() {}

  /** Orders an object's top-level keys and its metadata. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> object(Map<String, Object> object) {
    Json.order(object, OBJECT);
    if (object.get("metadata") instanceof Map<?, ?> metadata) {
      Json.order((Map<String, Object>) metadata, METADATA);
    }
    return object;
  }

  /** Orders a pod template, its pod spec and every container in it. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> podTemplate(Map<String, Object> template) {
    Json.order(template, TEMPLATE);
    if (template.get("metadata") instanceof Map<?, ?> metadata) {
      Json.order((Map<String, Object>) metadata, METADATA);
    }
    if (template.get("spec") instanceof Map<?, ?> spec) {
      Map<String, Object> podSpec = (Map<String, Object>) spec;
      Json.order(podSpec, POD_SPEC);
      for (String key : List.of("initContainers", "containers")) {
        for (Map<String, Object> container : Json.maps(podSpec.get(key))) {
          Json.order(container, CONTAINER);
          if (container.get("resources") instanceof Map<?, ?> resources) {
            Json.order((Map<String, Object>) resources, RESOURCES);
          }
        }
      }
    }
    return template;
  }
}

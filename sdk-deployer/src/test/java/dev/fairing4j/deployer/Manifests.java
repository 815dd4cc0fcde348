package dev.fairing4j.deployer;

import dev.fairing4j.deployer.job.internal.kinds.TrainingKinds;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads parts of parsed manifests: pod templates, training containers, env. */
final class Manifests {
  private Manifests() {}

  /** The pod templates of a training object, in manifest order. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> podTemplates(Map<String, Object> object) {
    Map<String, Object> spec = Fixtures.at(object, "spec");
    if ("Job".equals(object.get("kind"))) {
      return List.of((Map<String, Object>) spec.get("template"));
    }
    String key = operatorKind(object).replicaSpecsField();
    List<Map<String, Object>> templates = new ArrayList<>();
    Map<String, Object> replicas = (Map<String, Object>) spec.get(key);
    replicas.values().forEach(replica ->
        templates.add((Map<String, Object>) ((Map<String, Object>) replica).get("template")));
    return templates;
  }

  /** The pod template of one replica type of a Kubeflow object. */
  static Map<String, Object> podTemplate(Map<String, Object> object, String replicaType) {
    String key = operatorKind(object).replicaSpecsField();
    return Fixtures.at(object, "spec", key, replicaType, "template");
  }

  /** The container called {@code name} in a pod template. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> container(Map<String, Object> template, String name) {
    List<Map<String, Object>> containers = Fixtures.at(template, "spec", "containers");
    return containers.stream().filter(c -> name.equals(c.get("name"))).findFirst()
        .orElseThrow(() -> new AssertionError("no container " + name + " in " + template));
  }

  /** The training container's name for a kind. */
  static String trainingContainer(Map<String, Object> object) {
    return TrainingKinds.named((String) object.get("kind"))
        .map(dev.fairing4j.deployer.job.internal.kinds.TrainingKind::containerName)
        .orElse("training");
  }

  /** The operator's description of the object's kind, as its room provides it. */
  static dev.fairing4j.deployer.job.internal.kinds.TrainingKind operatorKind(
      Map<String, Object> object) {
    return TrainingKinds.named((String) object.get("kind"))
        .orElseThrow(() -> new AssertionError("not an operator kind: " + object.get("kind")));
  }

  /** Every training container of a training object. */
  static List<Map<String, Object>> trainingContainers(Map<String, Object> object) {
    return podTemplates(object).stream()
        .map(template -> container(template, trainingContainer(object))).toList();
  }

  /** An env entry by name, or null. */
  static Map<String, Object> env(Map<String, Object> container, String name) {
    List<Map<String, Object>> env = Fixtures.at(container, "env");
    if (env == null) {
      return null;
    }
    return env.stream().filter(e -> name.equals(e.get("name"))).findFirst().orElse(null);
  }
}

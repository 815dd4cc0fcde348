package dev.fairing4j.deployer.job.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The model an endpoint's object serves, read back from the object itself, so that a handle
 * attached later (another process, a restarted kernel) predicts on the same path the deployer
 * rendered: the serving container's readiness path {@code /v1/models/<model>}, else its
 * {@code MODEL_NAME}, else (a stored model of KServe's) the object's name.
 */
public final class ServedModel {
  /** The serving container's name, as both serving deployers render it. */
  public static final String CONTAINER = "kserve-container";
  /** The label that marks a serving Deployment's objects and pods. */
  public static final String ROLE_LABEL = "fairing4j.dev/role";
  /** The value of {@link #ROLE_LABEL}. */
  public static final String ROLE = "predictor";
  /**
   * fairing4j's model server's file, as {@code Preprocessors.predictor(..)} puts it in the
   * context; it imports the file after {@code --predictor}.
   */
  public static final String SERVER_FILE = "fairing4j_model_server.py";
  private static final String PREFIX = "/v1/models/";

  private ServedModel() {}

  /** The model server's V1 readiness path for {@code model}: {@code /v1/models/<model>}. */
  public static String readinessPath(String model) {
    return PREFIX + model;
  }

  /**
   * The readiness probe of a serving container: the server's V1 readiness path on {@code port}
   * (a number, or the container port's name), every 2 s, not ready after 3 misses.
   */
  public static Map<String, Object> readinessProbe(String model, Object port) {
    Map<String, Object> get = Json.map();
    get.put("path", readinessPath(model));
    get.put("port", port);
    Map<String, Object> probe = Json.map();
    probe.put("httpGet", get);
    probe.put("periodSeconds", 2);
    probe.put("failureThreshold", 3);
    return probe;
  }

  /** The model {@code object} (a Deployment or an InferenceService) serves. */
  public static String of(Map<String, Object> object) {
    String name = JsonTree.text(object, "metadata", "name").orElse("");
    List<Map<String, Object>> containers = JsonTree.maps(object, "spec", "template", "spec",
        "containers");
    if (containers.isEmpty()) {
      containers = JsonTree.maps(object, "spec", "predictor", "containers");
    }
    for (Map<String, Object> container : containers) {
      if (!CONTAINER.equals(JsonTree.text(container, "name").orElse(""))) {
        continue;
      }
      Optional<String> probed = JsonTree.text(container, "readinessProbe", "httpGet", "path")
          .filter(path -> path.startsWith(PREFIX)).map(path -> path.substring(PREFIX.length()));
      if (probed.isPresent()) {
        return probed.get();
      }
      for (Map<String, Object> env : JsonTree.maps(container, "env")) {
        if ("MODEL_NAME".equals(JsonTree.text(env, "name").orElse(""))) {
          return JsonTree.text(env, "value").orElse(name);
        }
      }
    }
    return name;
  }
}

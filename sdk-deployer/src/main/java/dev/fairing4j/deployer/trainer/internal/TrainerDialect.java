package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.Json;
import dev.fairing4j.deployer.trainer.TrainerApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The TrainJob shapes of the Trainer versions in use (see {@link TrainerApi}): which one a
 * rendered TrainJob has, and v2.3's turned into v2.0's. The runtime patch fairing4j writes on the
 * {@code node} job becomes one {@code podSpecOverrides} entry targeting {@code node} (volumes,
 * node selector, tolerations, service account, scheduling gates; the container's volume mounts),
 * and its pod labels and annotations become {@code spec.labels} and {@code spec.annotations}
 * (v2.0 puts those on the JobSet and its Jobs). What v2.0 has no field for fails with an
 * {@link InvalidInputException} naming it.
 */
public final class TrainerDialect {
  /** Pod fields v2.0's {@code podSpecOverrides} takes (besides containers). */
  private static final List<String> V20_POD_FIELDS = List.of("serviceAccountName", "volumes",
      "nodeSelector", "tolerations", "schedulingGates");

  private TrainerDialect() {}

  /**
   * The shape {@code trainJob}'s spec is written in: {@link TrainerApi#V2_3} with
   * {@code runtimePatches}, {@link TrainerApi#V2_0} with {@code podSpecOverrides},
   * {@code labels} or {@code annotations}; empty when it has none of these (then every version
   * takes it as it is).
   */
  public static Optional<TrainerApi> shapeOf(Map<String, Object> trainJob) {
    Map<String, Object> spec = trainJob.get("spec") instanceof Map<?, ?> map
        ? Json.copyMap(castMap(map)) : Map.of();
    if (spec.containsKey("runtimePatches")) {
      return Optional.of(TrainerApi.V2_3);
    }
    if (spec.containsKey("podSpecOverrides") || spec.containsKey("labels")
        || spec.containsKey("annotations")) {
      return Optional.of(TrainerApi.V2_0);
    }
    return Optional.empty();
  }

  /**
   * A copy of the TrainJob {@code trainJob} (v2.3 shape) in v2.0's shape.
   *
   * @throws InvalidInputException for a field v2.0 cannot take
   */
  public static Map<String, Object> toV20(Map<String, Object> trainJob) {
    Map<String, Object> copy = Json.copyMap(trainJob);
    if (copy.get("spec") instanceof Map<?, ?> spec) {
      copy.put("spec", specForV20(Json.copyMap(castMap(spec))));
    }
    return copy;
  }

  /**
   * {@code spec} (v2.3 shape, changed in place and returned) in v2.0's shape: runtime patches
   * become {@code podSpecOverrides} and {@code spec.labels}/{@code annotations}.
   *
   * @throws InvalidInputException for a field v2.0 cannot take
   */
  public static Map<String, Object> specForV20(Map<String, Object> spec) {
    List<Map<String, Object>> patches = Json.maps(spec.remove("runtimePatches"));
    if (patches.isEmpty()) {
      return spec;
    }
    Map<String, Object> labels = Json.map();
    Map<String, Object> annotations = Json.map();
    List<Object> overrides = new ArrayList<>();
    for (Map<String, Object> patch : patches) {
      Map<String, Object> runtimeSpec = Json.child(patch, "trainingRuntimeSpec");
      Map<String, Object> template = Json.child(runtimeSpec, "template");
      for (Map<String, Object> job : Json.maps(Json.child(template, "spec")
          .get("replicatedJobs"))) {
        String target = String.valueOf(job.get("name"));
        Map<String, Object> pod = Json.child(Json.child(Json.child(job, "template"), "spec"),
            "template");
        Map<String, Object> metadata = Json.child(pod, "metadata");
        labels.putAll(Json.child(metadata, "labels"));
        annotations.putAll(Json.child(metadata, "annotations"));
        overrides.add(override(target, Json.child(pod, "spec")));
      }
    }
    Map<String, Object> result = Json.map();
    spec.forEach((key, value) -> {
      result.put(key, value);
      if (key.equals("runtimeRef")) {
        // v2.0 lists them right after the runtime, as its types do
        result.put("labels", labels);
        result.put("annotations", annotations);
      }
    });
    if (!result.containsKey("labels")) {
      result.put("labels", labels);
      result.put("annotations", annotations);
    }
    result.put("podSpecOverrides", overrides);
    Json.prune(result);
    spec.clear();
    spec.putAll(result);
    return spec;
  }

  private static Map<String, Object> override(String target, Map<String, Object> podSpec) {
    Map<String, Object> override = Json.map();
    override.put("targetJobs", List.of(Map.of("name", target)));
    for (Map.Entry<String, Object> field : podSpec.entrySet()) {
      String key = field.getKey();
      if (key.equals("containers")) {
        List<Object> containers = new ArrayList<>();
        for (Map<String, Object> container : Json.maps(field.getValue())) {
          Map<String, Object> kept = Json.map();
          for (Map.Entry<String, Object> part : container.entrySet()) {
            if (part.getKey().equals("securityContext")) {
              throw missing("container securityContext (Mutators.securityContext()"
                  + " .readOnlyRootFilesystem() and the like)");
            }
            kept.put(part.getKey(), part.getValue());
          }
          containers.add(kept);
        }
        override.put("containers", containers);
      } else if (V20_POD_FIELDS.contains(key)) {
        override.put(key, field.getValue());
      } else {
        throw missing(switch (key) {
          case "imagePullSecrets" -> "imagePullSecrets (the push credentials' image-pull Secret,"
              + " Mutators.imagePullSecrets(..))";
          case "securityContext" -> "the pod's securityContext (Mutators.securityContext())";
          default -> key;
        });
      }
    }
    Json.order(override, List.of("targetJobs", "serviceAccountName", "containers", "volumes",
        "nodeSelector", "tolerations", "schedulingGates"));
    return override;
  }

  private static InvalidInputException missing(String what) {
    return InvalidInputException.of("trainerApi", "Trainer v2.0's TrainJob has no field for "
        + what + " (v2.0 overrides only volumes, mounts, env, node selector, tolerations,"
        + " service account and scheduling gates; v2.3's runtimePatches take more)",
        "set it in the runtime (a TrainingRuntime of your own, then"
            + " .namespacedRuntime(\"<name>\")), drop it, or upgrade the Trainer to v2.3");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Map<?, ?> map) {
    return (Map<String, Object>) map;
  }
}

package dev.fairing4j.deployer.kubernetes.internal.jobs;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.deployer.job.internal.Mappers;
import dev.fairing4j.deployer.job.internal.Quantities;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Trainer v2 runtimes on an API server, read as the Kubeflow SDK's {@code list_runtimes()}
 * reads them: the framework from the {@code trainer.kubeflow.org/framework} label, the node count
 * from {@code mlPolicy.numNodes}, the image and GPUs from the {@code node} step's container (GPUs
 * counted as the SDK counts them for {@code numProcPerNode}: {@link Quantities#gpus}).
 */
public final class TrainerRuntimes {
  private static final ResourceRef CLUSTER_WIDE = ResourceRef.of(TrainJobs.API_VERSION,
      TrainingRuntime.CLUSTER_WIDE);
  private static final ResourceRef NAMESPACED = ResourceRef.of(TrainJobs.API_VERSION,
      TrainingRuntime.NAMESPACED);
  private static final String FRAMEWORK_LABEL = "trainer.kubeflow.org/framework";
  private static final String ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step";
  private static final TypeReference<Map<String, Object>> CONTAINER = new TypeReference<>() { };

  private TrainerRuntimes() {}

  /**
   * The ClusterTrainingRuntimes, then {@code namespace}'s TrainingRuntimes, each by name; none
   * of a kind whose CRD is not installed.
   *
   * @throws KubernetesApiException when the server refuses the list (RBAC: docs/rbac.yaml)
   */
  public static List<TrainingRuntime> list(KubeRest rest, String namespace) {
    List<TrainingRuntime> runtimes = new ArrayList<>();
    runtimes.addAll(read(rest, CLUSTER_WIDE, Optional.empty()));
    runtimes.addAll(read(rest, NAMESPACED, Optional.of(namespace)));
    return runtimes;
  }

  private static List<TrainingRuntime> read(KubeRest rest, ResourceRef kind,
      Optional<String> namespace) {
    List<Map<String, Object>> objects;
    try {
      objects = rest.list(kind, namespace, Optional.empty(), Optional.empty());
    } catch (KubernetesApiException e) {
      if (e.httpStatus().orElse(0) == 404) {
        return List.of(); // Trainer v2 is not installed: no runtimes of this kind
      }
      throw e;
    }
    return objects.stream().map(o -> runtime(kind.kind(), Mappers.JSON.valueToTree(o)))
        .sorted(Comparator.comparing(TrainingRuntime::name)).toList();
  }

  /** One runtime object as the SDK shows it. */
  static TrainingRuntime runtime(String kind, JsonNode object) {
    JsonNode metadata = object.path("metadata");
    Optional<String> namespace = TrainingRuntime.NAMESPACED.equals(kind)
        ? Optional.of(metadata.path("namespace").asText("")) : Optional.empty();
    JsonNode spec = object.path("spec");
    Optional<JsonNode> node = trainerContainer(spec);
    return new TrainingRuntime(metadata.path("name").asText(), kind, namespace,
        text(metadata.path("labels").path(FRAMEWORK_LABEL)),
        Math.max(1, spec.path("mlPolicy").path("numNodes").asInt(1)),
        node.flatMap(c -> text(c.path("image"))),
        node.map(c -> Quantities.gpus(Mappers.JSON.convertValue(c, CONTAINER))).orElse(0));
  }

  /**
   * The container the trainer runs in: {@code node} in the replicated job {@code node}, or in
   * the one labelled as the trainer step (a runtime of a launcher and nodes names both).
   */
  private static Optional<JsonNode> trainerContainer(JsonNode spec) {
    for (JsonNode job : spec.path("template").path("spec").path("replicatedJobs")) {
      boolean trainer = TrainJobs.NODE.equals(job.path("name").asText())
          || "trainer".equals(job.path("template").path("metadata").path("labels")
              .path(ANCESTOR_LABEL).asText());
      if (!trainer) {
        continue;
      }
      for (JsonNode container : job.path("template").path("spec").path("template")
          .path("spec").path("containers")) {
        if (TrainJobs.NODE.equals(container.path("name").asText())) {
          return Optional.of(container);
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> text(JsonNode node) {
    return node.isTextual() && !node.asText().isBlank() ? Optional.of(node.asText())
        : Optional.empty();
  }
}

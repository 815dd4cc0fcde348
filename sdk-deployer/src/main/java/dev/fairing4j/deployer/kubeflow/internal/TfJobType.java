package dev.fairing4j.deployer.kubeflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology.Replica;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The operator's TFJob: only {@code TF_CONFIG}, only with more than one replica; the job follows
 * its Chief (or Master, its old alias), else worker-0, or every Worker with successPolicy
 * AllWorkers.
 */
public final class TfJobType extends OperatorKind {
  /** The kind's name. */
  public static final String KIND = "TFJob";

  /** For {@link java.util.ServiceLoader}. */
  public TfJobType() {
    super(KIND, "tfReplicaSpecs", "tensorflow", "tfjob-port", 2222, "Never",
        List.of("Chief", "Master", "PS", "Worker", "Evaluator"));
  }

  @Override
  public void checkReplicas(String path, Map<String, Integer> replicasByType) {
    if (replicasByType.containsKey("Chief") && replicasByType.containsKey("Master")) {
      throw InvalidInputException.of(path, "has both Chief and Master",
          "keep Chief only; Master is its old alias");
    }
  }

  @Override
  public Map<String, String> injectedEnv(JsonNode spec, ReplicaTopology topology,
      Replica replica) {
    Map<String, String> env = new LinkedHashMap<>();
    if (topology.totalReplicas() <= 1) {
      return env;
    }
    // Go's json.Marshal sorts map keys: the cluster's replica types come out in sorted order.
    ObjectNode config = JsonNodeFactory.instance.objectNode();
    ObjectNode cluster = config.putObject("cluster");
    topology.groups().stream().filter(g -> g.replicas() > 0)
        .sorted(Comparator.comparing(g -> g.type().toLowerCase(Locale.ROOT)))
        .forEach(group -> {
          ArrayNode addresses = cluster.putArray(group.type().toLowerCase(Locale.ROOT));
          for (int i = 0; i < group.replicas(); i++) {
            Replica member = new Replica(group.type(), i);
            addresses.add(topology.serviceHost(member) + ":"
                + topology.port(member, group.port()));
          }
        });
    config.putObject("task").put("type", replica.type().toLowerCase(Locale.ROOT))
        .put("index", replica.index());
    config.put("environment", "cloud");
    env.put("TF_CONFIG", config.toString());
    return env;
  }

  @Override
  public boolean succeeded(JsonNode spec, ReplicaTopology topology,
      Predicate<Replica> replicaSucceeded) {
    for (String chief : List.of("Chief", "Master")) {
      if (topology.group(chief).isPresent()) {
        return allSucceeded(topology, chief, replicaSucceeded);
      }
    }
    if (spec.path("successPolicy").asText("").equals("AllWorkers")) {
      return allSucceeded(topology, "Worker", replicaSucceeded);
    }
    return topology.group("Worker").isPresent()
        && replicaSucceeded.test(new Replica("Worker", 0));
  }
}

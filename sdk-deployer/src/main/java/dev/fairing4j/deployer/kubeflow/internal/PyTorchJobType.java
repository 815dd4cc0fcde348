package dev.fairing4j.deployer.kubeflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology.Replica;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The operator's PyTorchJob (CONTRACT.md, "Environment injected"): torchrun's {@code PET_*}
 * variables, {@code MASTER_*}/{@code RANK}/{@code WORLD_SIZE} when there is a Master, the
 * rendezvous of an elastic job; the job follows its Master, or every Worker without one.
 */
public final class PyTorchJobType extends OperatorKind {
  /** The kind's name. */
  public static final String KIND = "PyTorchJob";

  /** For {@link java.util.ServiceLoader}. */
  public PyTorchJobType() {
    super(KIND, "pytorchReplicaSpecs", "pytorch", "pytorchjob-port", 23456, "OnFailure",
        List.of("Master", "Worker"));
  }

  @Override
  public void checkReplicas(String path, Map<String, Integer> replicasByType) {
    requireOneMaster(path, replicasByType);
  }

  @Override
  public Map<String, String> injectedEnv(JsonNode spec, ReplicaTopology topology,
      Replica replica) {
    Map<String, String> env = new LinkedHashMap<>();
    String nproc = spec.path("nprocPerNode").asText("auto");
    JsonNode elastic = spec.path("elasticPolicy");
    boolean isElastic = elastic.isObject() && !elastic.isEmpty();
    int total = topology.totalReplicas();
    env.put("PYTHONUNBUFFERED", "1");
    env.put("PET_NPROC_PER_NODE", nproc);
    env.put("PET_NNODES", isElastic ? elastic.path("minReplicas").asLong(total) + ":"
        + elastic.path("maxReplicas").asLong(total) : String.valueOf(total));
    topology.group("Master").ifPresent(master -> {
      Replica master0 = new Replica("Master", 0);
      String host = topology.host(master0);
      String port = String.valueOf(topology.port(master0, master.port()));
      env.put("MASTER_ADDR", host);
      env.put("PET_MASTER_ADDR", host);
      env.put("MASTER_PORT", port);
      env.put("PET_MASTER_PORT", port);
      // WORLD_SIZE counts processes; a non-numeric nprocPerNode ("auto", "cpu", "gpu") counts 1.
      env.put("WORLD_SIZE", String.valueOf(total * numericOrOne(nproc)));
      String rank = String.valueOf(replica.type().equals("Worker") ? replica.index() + 1
          : replica.index());
      env.put("RANK", rank);
      env.put("PET_NODE_RANK", rank);
    });
    if (isElastic) {
      rendezvous(elastic, topology, env);
    }
    return env;
  }

  /**
   * The rendezvous on Worker 0 unless {@code rdzvHost}/{@code rdzvPort} say otherwise. Worker 0
   * is named by the host it knows itself by, so that torch lets it alone host the store.
   */
  private void rendezvous(JsonNode policy, ReplicaTopology topology, Map<String, String> env) {
    Replica worker0 = new Replica("Worker", 0);
    int declared = policy.hasNonNull("rdzvPort") ? policy.get("rdzvPort").asInt()
        : declaredPort(topology, "Worker");
    boolean hasWorker = topology.group("Worker").isPresent();
    int port = hasWorker ? topology.port(worker0, declared) : declared;
    String host = policy.hasNonNull("rdzvHost")
        ? topology.network().named(policy.get("rdzvHost").asText())
        : hasWorker ? topology.ownHost(worker0) : topology.host(worker0);
    env.put("PET_RDZV_ENDPOINT", host + ":" + port);
    env.put("PET_RDZV_BACKEND", policy.path("rdzvBackend").asText("c10d"));
    if (policy.hasNonNull("maxRestarts")) {
      env.put("PET_MAX_RESTARTS", policy.get("maxRestarts").asText());
    }
    if (policy.hasNonNull("rdzvId")) {
      env.put("PET_RDZV_ID", policy.get("rdzvId").asText());
    }
    List<String> conf = new ArrayList<>();
    policy.path("rdzvConf").forEach(kv -> conf.add(kv.path("key").asText("") + "="
        + kv.path("value").asText("")));
    if (!conf.isEmpty()) {
      env.put("PET_RDZV_CONF", String.join(",", conf));
    }
  }

  @Override
  public boolean succeeded(JsonNode spec, ReplicaTopology topology,
      Predicate<Replica> replicaSucceeded) {
    return topology.group("Master").isPresent()
        ? allSucceeded(topology, "Master", replicaSucceeded)
        : allSucceeded(topology, "Worker", replicaSucceeded);
  }

  private static int numericOrOne(String nproc) {
    try {
      return Math.max(1, Integer.parseInt(nproc.trim()));
    } catch (NumberFormatException e) {
      return 1;
    }
  }
}

package dev.fairing4j.deployer.kubeflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology.Replica;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The operator's XGBoostJob (training-operator {@code pkg/controller.v1/xgboost}, {@code
 * SetPodEnv}): into every container {@code MASTER_PORT}, {@code MASTER_ADDR}, {@code WORLD_SIZE}
 * (all replicas), {@code RANK} (Master 0, worker-i i+1), {@code PYTHONUNBUFFERED=0} (any non-empty
 * value unbuffers Python), and with more than one replica {@code WORKER_PORT} and {@code
 * WORKER_ADDRS}, which LightGBM jobs read. The webhook requires exactly one Master; the job
 * follows it.
 */
public final class XGBoostJobType extends OperatorKind {
  /** The kind's name. */
  public static final String KIND = "XGBoostJob";

  /** For {@link java.util.ServiceLoader}. */
  public XGBoostJobType() {
    super(KIND, "xgbReplicaSpecs", "xgboost", "xgboostjob-port", 9999, "Never",
        List.of("Master", "Worker"));
  }

  @Override
  public void checkReplicas(String path, Map<String, Integer> replicasByType) {
    if (!replicasByType.containsKey("Master")) {
      throw InvalidInputException.of(path + ".Master", "is missing; the operator requires"
          + " one Master, which runs XGBoost's tracker as rank 0", "add a Master replica spec"
          + " with replicas 1");
    }
    requireOneMaster(path, replicasByType);
  }

  @Override
  public Map<String, String> injectedEnv(JsonNode spec, ReplicaTopology topology,
      Replica replica) {
    Map<String, String> env = new LinkedHashMap<>();
    Replica master0 = new Replica("Master", 0);
    int total = topology.totalReplicas();
    int masters = topology.group("Master").map(ReplicaTopology.Group::replicas).orElse(0);
    int rank = replica.index() + (replica.type().equals("Worker") ? masters : 0);
    env.put("MASTER_PORT", String.valueOf(topology.port(master0,
        declaredPort(topology, "Master"))));
    env.put("MASTER_ADDR", topology.host(master0));
    env.put("WORLD_SIZE", String.valueOf(total));
    env.put("RANK", String.valueOf(rank));
    env.put("PYTHONUNBUFFERED", "0");
    if (total > 1) {
      Replica worker0 = new Replica("Worker", 0);
      env.put("WORKER_PORT", String.valueOf(topology.port(worker0,
          declaredPort(topology, "Worker"))));
      // One address per replica but one, as the operator counts them.
      List<String> addresses = new ArrayList<>();
      for (int i = 0; i < total - 1; i++) {
        addresses.add(topology.host(new Replica("Worker", i)));
      }
      env.put("WORKER_ADDRS", String.join(",", addresses));
    }
    return env;
  }

  @Override
  public boolean succeeded(JsonNode spec, ReplicaTopology topology,
      Predicate<Replica> replicaSucceeded) {
    return allSucceeded(topology, "Master", replicaSucceeded);
  }
}

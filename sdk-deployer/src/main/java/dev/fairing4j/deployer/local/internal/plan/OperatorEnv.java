package dev.fairing4j.deployer.local.internal.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import dev.fairing4j.deployer.trainer.internal.TrainerTopology;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The environment the Kubeflow training operator (or the Job controller, or the Trainer's torch
 * plugin) injects into a replica, exactly as CONTRACT.md lists it, with what the network changes: host names become
 * {@code 127.0.0.1} and ports become the job's free local ports.
 */
public final class OperatorEnv {
  /** Where every replica finds the others: all run on this machine. */
  public static final String LOOPBACK = "127.0.0.1";

  private static final ObjectMapper JSON = new ObjectMapper();

  private OperatorEnv() {}

  /** The injected variables for {@code replica}, in the order the operator adds them. */
  public static Map<String, String> of(JobPlan plan, ReplicaId replica, JobPorts ports) {
    return switch (plan.kind()) {
      case PYTORCH -> pyTorch(plan, replica, ports);
      case TF -> tensorFlow(plan, replica, ports);
      case TRAINJOB -> torchPlugin(plan, replica, ports);
      case BATCH -> batch(plan, replica);
      case DEPLOYMENT -> serving(plan, replica, ports);
    };
  }

  private static Map<String, String> pyTorch(JobPlan plan, ReplicaId replica, JobPorts ports) {
    Map<String, String> env = new LinkedHashMap<>();
    String nproc = plan.nprocPerNode().orElse("auto");
    int total = plan.totalReplicas();
    env.put("PYTHONUNBUFFERED", "1");
    env.put("PET_NPROC_PER_NODE", nproc);
    env.put("PET_NNODES", plan.elasticPolicy().isEmpty() ? String.valueOf(total)
        : Maps.number(plan.elasticPolicy(), "minReplicas").orElse((long) total) + ":"
            + Maps.number(plan.elasticPolicy(), "maxReplicas").orElse((long) total));
    plan.group("Master").ifPresent(master -> {
      String masterPod = ReplicaId.of(plan, master, 0).podName();
      String port = String.valueOf(ports.local(masterPod, JobPorts.operatorPort(plan, master))
          .orElseThrow());
      env.put("MASTER_ADDR", LOOPBACK);
      env.put("PET_MASTER_ADDR", LOOPBACK);
      env.put("MASTER_PORT", port);
      env.put("PET_MASTER_PORT", port);
      // WORLD_SIZE counts processes; a non-numeric nprocPerNode ("auto", "cpu", "gpu") counts 1.
      env.put("WORLD_SIZE", String.valueOf(total * numericOrOne(nproc)));
      String rank = String.valueOf(replica.type().equals("Worker") ? replica.index() + 1
          : replica.index());
      env.put("RANK", rank);
      env.put("PET_NODE_RANK", rank);
    });
    if (!plan.elasticPolicy().isEmpty()) {
      elastic(plan, ports, env);
    }
    return env;
  }

  /**
   * The Trainer torch plugin's variables for node {@code replica}, as {@link TrainerTopology}
   * computes them from the TrainJob, with node 0's host and port 29500 made local.
   */
  private static Map<String, String> torchPlugin(JobPlan plan, ReplicaId replica,
      JobPorts ports) {
    Map<String, Object> trainJob = plan.object(plan.kind().kind(), plan.name()).orElseThrow();
    TrainerTopology.Node node = TrainerTopology.torchNodes(trainJob).get(replica.index());
    Map<String, String> env = new LinkedHashMap<>(node.env());
    String master = ReplicaId.of(plan, plan.groups().get(0), 0).podName();
    env.put("PET_MASTER_ADDR", LOOPBACK);
    env.put("PET_MASTER_PORT", String.valueOf(ports.local(master, TrainJobs.MASTER_PORT)
        .orElseThrow()));
    return env;
  }

  /**
   * Where replicas have pod host names ({@link PodHosts}): an elastic job's rendezvous endpoint
   * names Worker 0 as the operator's does ({@code <job>-worker-0:<local port>}), so torch lets
   * Worker 0 alone host the rendezvous store. A {@code rdzvHost} the user set stays.
   */
  public static void nameRendezvousHost(JobPlan plan, Map<String, String> env) {
    String endpoint = env.get("PET_RDZV_ENDPOINT");
    if (endpoint == null || plan.elasticPolicy().containsKey("rdzvHost")
        || !endpoint.startsWith(LOOPBACK + ":")) {
      return;
    }
    plan.group("Worker").ifPresent(worker -> env.put("PET_RDZV_ENDPOINT",
        ReplicaId.of(plan, worker, 0).podName() + endpoint.substring(LOOPBACK.length())));
  }

  private static void elastic(JobPlan plan, JobPorts ports, Map<String, String> env) {
    Map<String, Object> policy = plan.elasticPolicy();
    // The operator points the rendezvous at worker-0 unless rdzvHost/rdzvPort say otherwise;
    // every host here is the loopback address.
    Optional<JobPlan.Group> worker = plan.group("Worker");
    int declared = Maps.number(policy, "rdzvPort").map(Long::intValue)
        .orElseGet(() -> worker.map(w -> JobPorts.operatorPort(plan, w))
            .orElse(plan.kind().defaultPort()));
    int port = worker.flatMap(w -> ports.local(ReplicaId.of(plan, w, 0).podName(), declared))
        .orElse(declared);
    env.put("PET_RDZV_ENDPOINT", LOOPBACK + ":" + port);
    env.put("PET_RDZV_BACKEND", Maps.string(policy, "rdzvBackend").orElse("c10d"));
    Maps.string(policy, "maxRestarts").ifPresent(v -> env.put("PET_MAX_RESTARTS", v));
    Maps.string(policy, "rdzvId").ifPresent(v -> env.put("PET_RDZV_ID", v));
    List<Map<String, Object>> conf = Maps.maps(policy, "rdzvConf");
    if (!conf.isEmpty()) {
      env.put("PET_RDZV_CONF", conf.stream()
          .map(kv -> Maps.string(kv, "key").orElse("") + "=" + Maps.string(kv, "value").orElse(""))
          .collect(Collectors.joining(",")));
    }
  }

  private static Map<String, String> tensorFlow(JobPlan plan, ReplicaId replica,
      JobPorts ports) {
    Map<String, String> env = new LinkedHashMap<>();
    if (plan.totalReplicas() <= 1) {
      return env;
    }
    // Go's json.Marshal sorts map keys: the cluster's replica types come out in sorted order.
    SortedMap<String, List<String>> cluster = new TreeMap<>();
    for (JobPlan.Group group : plan.groups()) {
      List<String> addresses = new ArrayList<>();
      for (int i = 0; i < group.replicas(); i++) {
        String pod = ReplicaId.of(plan, group, i).podName();
        addresses.add(LOOPBACK + ":"
            + ports.local(pod, JobPorts.operatorPort(plan, group)).orElseThrow());
      }
      cluster.put(group.lowerType(), addresses);
    }
    Map<String, Object> task = new LinkedHashMap<>();
    task.put("type", replica.type().toLowerCase(java.util.Locale.ROOT));
    task.put("index", replica.index());
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("cluster", cluster);
    config.put("task", task);
    config.put("environment", "cloud");
    try {
      env.put("TF_CONFIG", JSON.writeValueAsString(config));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write TF_CONFIG", e);
    }
    return env;
  }

  private static Map<String, String> batch(JobPlan plan, ReplicaId replica) {
    Map<String, String> env = new LinkedHashMap<>();
    if (plan.batch().map(JobPlan.Batch::indexed).orElse(false)) {
      env.put("JOB_COMPLETION_INDEX", String.valueOf(replica.index()));
    }
    return env;
  }

  // Every pod of a cluster listens on the declared port of its own IP; here they share one
  // loopback, so the model server listens on the replica's free port, which it reads from PORT.
  private static Map<String, String> serving(JobPlan plan, ReplicaId replica, JobPorts ports) {
    Map<String, String> env = new LinkedHashMap<>();
    plan.group(replica.type()).flatMap(group -> group.pod().container().ports().values().stream()
        .findFirst()).flatMap(declared -> ports.local(replica.podName(), declared))
        .ifPresent(local -> env.put("PORT", String.valueOf(local)));
    return env;
  }

  private static int numericOrOne(String nproc) {
    try {
      return Math.max(1, Integer.parseInt(nproc.trim()));
    } catch (NumberFormatException e) {
      return 1;
    }
  }
}

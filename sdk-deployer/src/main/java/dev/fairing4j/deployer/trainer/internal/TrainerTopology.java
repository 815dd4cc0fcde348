package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.deployer.job.internal.Quantities;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The pods a TrainJob on a torch runtime gets and the environment the torch plugin gives each
 * (CONTRACT.md (b), (c)), computed from the TrainJob alone: node {@code i} is pod
 * {@code <job>-node-0-<i>-xxxxx} with hostname {@code <job>-node-0-<i>} in subdomain
 * {@code <job>}, and gets {@code PET_NNODES}, {@code PET_NPROC_PER_NODE}, {@code PET_NODE_RANK},
 * {@code PET_MASTER_ADDR=<job>-node-0-0.<job>} and {@code PET_MASTER_PORT=29500}.
 *
 * <p>This is the seam for running a TrainJob without a cluster: a local backend starts one
 * process per {@link Node}, named by its hostname, with {@link Node#env} after rewriting the
 * master's host to {@code 127.0.0.1} and port 29500 to a free one (as it does for the v1
 * operator's {@code MASTER_ADDR}). The cluster suite checks these values against what the real
 * Trainer controller injects.
 */
public final class TrainerTopology {
  private TrainerTopology() {}

  /**
   * One training node.
   *
   * @param rank its completion index, {@code PET_NODE_RANK}
   * @param hostname the pod's hostname and the stable prefix of its name
   * @param env the torch plugin's variables for it, in the plugin's order
   */
  public record Node(int rank, String hostname, Map<String, String> env) {
    /** Copies the environment. */
    public Node {
      Objects.requireNonNull(hostname, "hostname");
      env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
    }
  }

  /** The nodes of the torch TrainJob {@code trainJob} (a manifest, either Trainer shape). */
  public static List<Node> torchNodes(Map<String, Object> trainJob) {
    String name = String.valueOf(TrainJobStatus.at(trainJob, "metadata", "name"));
    Object nodesValue = TrainJobStatus.at(trainJob, "spec", "trainer", "numNodes");
    int nodes = nodesValue instanceof Number n ? n.intValue() : 1;
    String procs = processesPerNode(trainJob);
    String master = TrainJobs.podHostname(name, TrainJobs.NODE, 0) + "." + name;
    List<Node> result = new ArrayList<>();
    for (int rank = 0; rank < nodes; rank++) {
      Map<String, String> env = new LinkedHashMap<>();
      env.put("PET_NNODES", String.valueOf(nodes));
      env.put("PET_NPROC_PER_NODE", procs);
      env.put("PET_NODE_RANK", String.valueOf(rank));
      env.put("PET_MASTER_ADDR", master);
      env.put("PET_MASTER_PORT", String.valueOf(TrainJobs.MASTER_PORT));
      result.add(new Node(rank, TrainJobs.podHostname(name, TrainJobs.NODE, rank), env));
    }
    return result;
  }

  /**
   * {@code PET_NPROC_PER_NODE} as the torch plugin sets it: {@code numProcPerNode} when given,
   * else {@code auto} when the resources per node name a GPU, else their CPU count (requests,
   * else limits; rounded up, at least 1), else 1.
   */
  static String processesPerNode(Map<String, Object> trainJob) {
    Object given = TrainJobStatus.at(trainJob, "spec", "trainer", "numProcPerNode");
    if (given != null) {
      return String.valueOf(given);
    }
    Object resources = TrainJobStatus.at(trainJob, "spec", "trainer", "resourcesPerNode");
    for (String section : List.of("limits", "requests")) {
      if (TrainJobStatus.at(resources, section) instanceof Map<?, ?> amounts
          && amounts.keySet().stream().anyMatch(k -> String.valueOf(k).contains("gpu"))) {
        return "auto";
      }
    }
    for (String section : List.of("requests", "limits")) {
      Object cpu = TrainJobStatus.at(resources, section, "cpu");
      if (cpu != null) {
        return String.valueOf(Math.max(1, cpus(String.valueOf(cpu))));
      }
    }
    return "1";
  }

  private static int cpus(String quantity) {
    return Quantities.wholeCpus(quantity).orElse(1);
  }

}

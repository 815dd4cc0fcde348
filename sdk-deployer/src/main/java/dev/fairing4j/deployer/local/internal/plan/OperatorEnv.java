package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import dev.fairing4j.deployer.trainer.internal.TrainerTopology;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment the Kubeflow training operator (or the Job controller, or the Trainer's torch
 * plugin) injects into a replica, exactly as CONTRACT.md lists it, with what the network changes:
 * host names become {@code 127.0.0.1} and ports become the job's free local ports. An operator
 * kind's variables come from its {@link TrainingKind}, given the job's replicas on this
 * machine's network.
 */
public final class OperatorEnv {
  /** Where every replica finds the others: all run on this machine. */
  public static final String LOOPBACK = "127.0.0.1";

  private OperatorEnv() {}

  /**
   * The injected variables for {@code replica}, in the order the operator adds them.
   *
   * @param podHosts whether the replica resolves the pods' host names ({@link PodHosts}), so a
   *     server that must know itself by name (torch's rendezvous store) can be named so
   */
  public static Map<String, String> of(JobPlan plan, ReplicaId replica, JobPorts ports,
      boolean podHosts) {
    if (plan.kind() == LocalKind.TRAINJOB) {
      return torchPlugin(plan, replica, ports);
    }
    if (plan.kind() == LocalKind.BATCH) {
      return batch(plan, replica);
    }
    if (plan.kind() == LocalKind.DEPLOYMENT) {
      return serving(plan, replica, ports);
    }
    TrainingKind kind = plan.kind().operatorKind().orElseThrow();
    return kind.injectedEnv(plan.spec(), topology(plan, ports, podHosts),
        new ReplicaTopology.Replica(replica.type(), replica.index()));
  }

  /** The job's replicas as its kind sees them, on the loopback address and local ports. */
  static ReplicaTopology topology(JobPlan plan, JobPorts ports, boolean podHosts) {
    List<ReplicaTopology.Group> groups = plan.groups().stream()
        .map(g -> new ReplicaTopology.Group(g.type(), g.replicas(), JobPorts.operatorPort(plan, g)))
        .toList();
    return new ReplicaTopology(plan.name(), plan.namespace(), groups, new LocalNetwork(plan,
        ports, podHosts));
  }

  /** One loopback address for every pod, a free local port for each pod's declared port. */
  private record LocalNetwork(JobPlan plan, JobPorts ports, boolean podHosts)
      implements ReplicaTopology.Network {
    @Override
    public String host(ReplicaTopology topology, ReplicaTopology.Replica replica,
        boolean qualified) {
      return LOOPBACK;
    }

    @Override
    public String ownHost(ReplicaTopology topology, ReplicaTopology.Replica replica) {
      return podHosts ? pod(replica) : LOOPBACK;
    }

    @Override
    public int port(ReplicaTopology topology, ReplicaTopology.Replica replica, int port) {
      return ports.local(pod(replica), port).orElse(port);
    }

    @Override
    public String named(String host) {
      return LOOPBACK;
    }

    private String pod(ReplicaTopology.Replica replica) {
      return plan.group(replica.type()).map(g -> ReplicaId.of(plan, g, replica.index())
          .podName()).orElse(replica.podName(plan.name()));
    }
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
}

package dev.fairing4j.deployer.job.internal.kinds;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A replica-spec job's replicas and how they reach each other: what a {@link TrainingKind}
 * computes its injected environment from. On a cluster every pod has its own host name and
 * listens on its declared port ({@link Network#cluster}); the local cluster gives one loopback
 * address and a free port per pod instead.
 *
 * @param jobName the job's name
 * @param namespace its namespace
 * @param groups the replica groups, in start order
 * @param network how a replica's address is written
 */
public record ReplicaTopology(String jobName, String namespace, List<Group> groups,
    Network network) {

  /** Copies the groups. */
  public ReplicaTopology {
    Objects.requireNonNull(jobName, "jobName");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(network, "network");
    groups = List.copyOf(groups);
  }

  /**
   * One replica type of the job.
   *
   * @param type the type as the manifest spells it, e.g. {@code Worker}
   * @param replicas how many instances
   * @param port the operator's port its container declares (the kind's default if none)
   */
  public record Group(String type, int replicas, int port) {}

  /**
   * One replica instance.
   *
   * @param type its type as the manifest spells it
   * @param index its index within the type
   */
  public record Replica(String type, int index) {
    /** The operator's pod (and Service) name: {@code <job>-<lower-case type>-<index>}. */
    public String podName(String jobName) {
      return jobName + "-" + type.toLowerCase(Locale.ROOT) + "-" + index;
    }
  }

  /** The group of {@code type}, if the job has one with at least one replica. */
  public Optional<Group> group(String type) {
    return groups.stream().filter(g -> g.type().equals(type) && g.replicas() > 0).findFirst();
  }

  /** The number of replicas over all groups. */
  public int totalReplicas() {
    return groups.stream().mapToInt(Group::replicas).sum();
  }

  /** Every replica, in start order. */
  public List<Replica> replicas() {
    List<Replica> all = new ArrayList<>();
    groups.forEach(g -> {
      for (int i = 0; i < g.replicas(); i++) {
        all.add(new Replica(g.type(), i));
      }
    });
    return all;
  }

  /** {@code replica}'s host as the operator names it. */
  public String host(Replica replica) {
    return network.host(this, replica, false);
  }

  /** {@code replica}'s host qualified by its Service's namespace ({@code TF_CONFIG}'s form). */
  public String serviceHost(Replica replica) {
    return network.host(this, replica, true);
  }

  /**
   * The host a replica names for a server that must also recognise itself by name (torch's
   * rendezvous store decides by host name whether it is the one to host it).
   */
  public String ownHost(Replica replica) {
    return network.ownHost(this, replica);
  }

  /** The port on which {@code replica} is reached for its declared {@code port}. */
  public int port(Replica replica, int port) {
    return network.port(this, replica, port);
  }

  /** How replicas' hosts and ports are written where the job runs. */
  public interface Network {
    /** The pod's host ({@code qualified}: with {@code .<namespace>.svc}). */
    String host(ReplicaTopology topology, Replica replica, boolean qualified);

    /** The host by which the pod also knows itself; the pod name on a cluster. */
    String ownHost(ReplicaTopology topology, Replica replica);

    /** The port on which the pod is reached for its declared {@code port}. */
    int port(ReplicaTopology topology, Replica replica, int port);

    /** How a host the user named in the spec (a rendezvous host) is reached. */
    String named(String host);

    /** A cluster's network: every pod its own host name, every port as declared. */
    static Network cluster() {
      return new Network() {
        @Override
        public String host(ReplicaTopology topology, Replica replica, boolean qualified) {
          String pod = replica.podName(topology.jobName());
          return qualified ? pod + "." + topology.namespace() + ".svc" : pod;
        }

        @Override
        public String ownHost(ReplicaTopology topology, Replica replica) {
          return replica.podName(topology.jobName());
        }

        @Override
        public int port(ReplicaTopology topology, Replica replica, int port) {
          return port;
        }

        @Override
        public String named(String host) {
          return host;
        }
      };
    }
  }
}

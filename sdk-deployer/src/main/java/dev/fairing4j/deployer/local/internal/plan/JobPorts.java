package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.core.FairingException;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The free local ports standing in for the pods' ports. On a cluster every pod has its own IP, so
 * all replicas listen on 23456 (or 2222); here they share 127.0.0.1, so each replica's declared
 * port maps to a distinct free port, chosen once per job and kept across restarts.
 *
 * @param byPod for each pod name, its declared port numbers mapped to local ports
 */
public record JobPorts(Map<String, Map<Integer, Integer>> byPod) {

  /** Copies the maps. */
  public JobPorts {
    Map<String, Map<Integer, Integer>> copy = new LinkedHashMap<>();
    byPod.forEach((pod, ports) -> copy.put(pod, Map.copyOf(ports)));
    byPod = java.util.Collections.unmodifiableMap(copy);
  }

  /** Picks free ports for every replica's declared ports (and the operator's default port). */
  public static JobPorts allocate(JobPlan plan) {
    Map<String, Set<Integer>> declared = new LinkedHashMap<>();
    for (JobPlan.Group group : plan.groups()) {
      Set<Integer> numbers = new LinkedHashSet<>(group.pod().container().ports().values());
      if (plan.kind().isKubeflow()) {
        numbers.add(operatorPort(plan, group));
      }
      for (int i = 0; i < group.replicas(); i++) {
        declared.put(ReplicaId.of(plan, group, i).podName(), numbers);
      }
    }
    int needed = declared.values().stream().mapToInt(Set::size).sum();
    List<Integer> free = freePorts(needed);
    Map<String, Map<Integer, Integer>> byPod = new LinkedHashMap<>();
    int next = 0;
    for (Map.Entry<String, Set<Integer>> entry : declared.entrySet()) {
      Map<Integer, Integer> ports = new TreeMap<>();
      for (int number : entry.getValue()) {
        ports.put(number, free.get(next++));
      }
      byPod.put(entry.getKey(), ports);
    }
    return new JobPorts(byPod);
  }

  /** The port the operator uses for a group: its named port, else the kind's default. */
  static int operatorPort(JobPlan plan, JobPlan.Group group) {
    // Optional.map drops the null of a missing port name, so the default applies then.
    return plan.kind().portName().map(group.pod().container().ports()::get)
        .orElse(plan.kind().defaultPort());
  }

  /** The local port standing in for {@code declared} on {@code pod}, if that pod declares it. */
  public java.util.Optional<Integer> local(String pod, int declared) {
    return java.util.Optional.ofNullable(byPod.getOrDefault(pod, Map.of()).get(declared));
  }

  private static List<Integer> freePorts(int count) {
    // Hold every socket open until all are chosen, so the ports are distinct; the wildcard
    // address makes sure nothing listens on the port on any interface.
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0);
        sockets.add(socket);
        ports.add(socket.getLocalPort());
      }
      return ports;
    } catch (IOException e) {
      throw FairingException.of("allocate local ports", "localhost", e.getMessage(),
          "free some local ports", e);
    } finally {
      for (ServerSocket socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // closing a listening socket that was never accepted on cannot lose data
        }
      }
    }
  }
}

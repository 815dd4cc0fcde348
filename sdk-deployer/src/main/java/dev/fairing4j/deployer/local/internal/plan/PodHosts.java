package dev.fairing4j.deployer.local.internal.plan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives each sandboxed replica of a job what a pod has: its own host name (the pod name) and an
 * {@code /etc/hosts} in which every pod name of the job resolves, each to its own loopback
 * address ({@code 127.77.x.y}; all of 127/8 reaches this machine).
 *
 * <p>Why: replicas that share the machine's host name and, in their own pid namespaces, the same
 * pid look like one node to torch's elastic rendezvous (its node identity is the FQDN and the
 * pid), so an elastic job's replicas joined as one node and trained as separate worlds of size
 * 1 while the job succeeded. With distinct names they are distinct nodes; and the rendezvous
 * endpoint can name Worker 0 as the operator does ({@code <job>-worker-0:<port>}), so torch lets
 * only Worker 0 host the rendezvous store (it hosts when the endpoint's host is its own name or a
 * loopback address: with {@code 127.0.0.1} every replica tried, and all but one failed to bind).
 */
public final class PodHosts {
  private final Map<String, String> addresses;

  private PodHosts(Map<String, String> addresses) {
    this.addresses = addresses;
  }

  /** A loopback address for every pod of {@code plan}, in replica order. */
  public static PodHosts of(JobPlan plan) {
    Map<String, String> addresses = new LinkedHashMap<>();
    List<ReplicaId> replicas = plan.replicas();
    for (int n = 0; n < replicas.size(); n++) {
      addresses.put(replicas.get(n).podName(), "127.77." + (n / 250) + "." + (n % 250 + 2));
    }
    return new PodHosts(addresses);
  }

  /**
   * Writes the hosts file the replicas share under {@code dir}: the machine's own entries
   * ({@code localhost} stays), then one line per pod.
   */
  public Path write(Path dir) {
    StringBuilder text = new StringBuilder();
    try {
      Path machine = Path.of("/etc/hosts");
      if (Files.isReadable(machine)) {
        text.append(Files.readString(machine, StandardCharsets.UTF_8));
        if (text.length() > 0 && text.charAt(text.length() - 1) != '\n') {
          text.append('\n');
        }
      }
      text.append("# the pods of this job (fairing4j local cluster)\n");
      addresses.forEach((pod, address) -> text.append(address).append('\t').append(pod)
          .append('\n'));
      Files.createDirectories(dir);
      Path file = dir.resolve("hosts");
      Files.writeString(file, text, StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the replicas' hosts file in " + dir, e);
    }
  }
}

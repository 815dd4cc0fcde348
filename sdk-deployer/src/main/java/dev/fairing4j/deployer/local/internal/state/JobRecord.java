package dev.fairing4j.deployer.local.internal.state;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/**
 * What the state directory keeps about one local job ({@code job.json}): enough for another JVM to
 * list it, show its status, follow its logs and stop it. Written by the job's supervisor on every
 * change; times are ISO-8601 strings.
 *
 * @param version the format version
 * @param kind the job kind
 * @param name the job name
 * @param namespace the namespace
 * @param createdAt when it was submitted
 * @param supervisorPid the process that supervises it: a supervisor of its own, or the JVM that
 *     submitted it ({@code detached} false)
 * @param supervisorStartedAt that process's start time, to tell it from a recycled pid
 * @param sandbox how replicas run: {@code bwrap}, {@code none} or {@code podman}
 * @param manifest the rendered objects it was submitted with
 * @param ports declared ports mapped to local ports, per pod
 * @param conditions the operator-style conditions
 * @param startTime when it started
 * @param completionTime when it finished, or null
 * @param settled true once it is terminal and none of its processes is left
 * @param replicas every replica
 * @param events Normal and Warning events, oldest first
 * @param detached true when the supervisor is a process of the job's own, which outlives the JVM
 *     that submitted the job and may be killed by whoever deletes it
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record JobRecord(int version, String kind, String name, String namespace,
    String createdAt, long supervisorPid, String supervisorStartedAt, String sandbox,
    List<Map<String, Object>> manifest, Map<String, Map<Integer, Integer>> ports,
    List<Condition> conditions, String startTime, String completionTime, boolean settled,
    List<Replica> replicas, List<Event> events, boolean detached) {

  /** The current format. */
  public static final int VERSION = 1;

  /** Normalises missing lists. */
  public JobRecord {
    manifest = manifest == null ? List.of() : manifest;
    ports = ports == null ? Map.of() : ports;
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
    replicas = replicas == null ? List.of() : List.copyOf(replicas);
    events = events == null ? List.of() : List.copyOf(events);
  }

  /**
   * A status condition as the operator writes it.
   *
   * @param type e.g. {@code Running}
   * @param status {@code "True"} or {@code "False"}
   * @param reason e.g. {@code PyTorchJobRunning}
   * @param message the explanation
   * @param lastUpdateTime when it was last written
   * @param lastTransitionTime when its status last changed
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Condition(String type, String status, String reason, String message,
      String lastUpdateTime, String lastTransitionTime) {}

  /**
   * One replica and its process.
   *
   * @param type the replica type
   * @param index its index
   * @param podName the pod name
   * @param shortName e.g. {@code worker-0}
   * @param container the container name
   * @param phase Pending, Running, Succeeded, Failed
   * @param reason why it is not running, e.g. Unschedulable, Error, Stopped
   * @param message the detail
   * @param restarts restarts so far
   * @param exitCode the last exit code, or null
   * @param pid the current process (its process group), or null
   * @param pidStartedAt the process's start time, or null
   * @param node the host it runs on
   * @param created false for a Job's index that has not been started yet
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Replica(String type, int index, String podName, String shortName,
      String container, String phase, String reason, String message, int restarts,
      Integer exitCode, Long pid, String pidStartedAt, String node, boolean created) {}

  /**
   * An event, like those the operator and kubelet post.
   *
   * @param type Normal or Warning
   * @param reason e.g. {@code ExitedWithCode}
   * @param object the pod or job it concerns
   * @param message the text
   * @param time when
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Event(String type, String reason, String object, String message, String time) {}
}

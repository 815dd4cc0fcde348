package dev.fairing4j.deployer.local.internal.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a rendered manifest asks the local cluster to run, read once at submit: the replica groups
 * with their container, volumes and restart policy, and the run policy. Values only; the raw
 * manifest objects travel along for the references (ConfigMaps, Secrets) the env may make.
 *
 * @param kind the job kind
 * @param name the job name
 * @param namespace the namespace
 * @param groups replica groups in start order
 * @param backoffLimit {@code runPolicy.backoffLimit} (Job: {@code spec.backoffLimit}, default 6)
 * @param activeDeadlineSeconds the deadline the local cluster enforces itself
 * @param spec the operator kind's {@code spec} as written, which its {@link
 *     dev.fairing4j.deployer.job.internal.kinds.TrainingKind} reads (nprocPerNode, elasticPolicy,
 *     successPolicy); empty for the kinds the local cluster reads itself
 * @param batch completions and parallelism of a plain Job
 * @param cleanPodPolicy which replicas are stopped when the job's own rules end it
 *     ({@code runPolicy.cleanPodPolicy}, default None); a plain Job stops its active pods, as
 *     the Job controller deletes them, which is Running
 * @param objects every rendered object, dependencies first
 */
public record JobPlan(LocalKind kind, String name, String namespace, List<Group> groups,
    Optional<Integer> backoffLimit, Optional<Long> activeDeadlineSeconds,
    JsonNode spec, Optional<Batch> batch, CleanPodPolicy cleanPodPolicy, List<Map<String, Object>> objects) {

  /** The {@code spec} of a kind whose spec no {@code TrainingKind} reads. */
  public static final JsonNode NO_SPEC = JsonNodeFactory.instance.objectNode();

  /** Copies the collections; {@code spec} is copied, so the plan's stays as read. */
  public JobPlan {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(cleanPodPolicy, "cleanPodPolicy");
    groups = List.copyOf(groups);
    spec = spec.deepCopy();
    objects = List.copyOf(objects);
  }

  /** Every replica instance, in start order. */
  public List<ReplicaId> replicas() {
    List<ReplicaId> ids = new ArrayList<>();
    for (Group group : groups) {
      for (int i = 0; i < group.replicas(); i++) {
        ids.add(ReplicaId.of(this, group, i));
      }
    }
    return ids;
  }

  /** The group of {@code type}, if the job has it. */
  public Optional<Group> group(String type) {
    return groups.stream().filter(g -> g.type().equals(type)).findFirst();
  }

  /** The rendered object of {@code kind} named {@code objectName} (a ConfigMap, a Secret). */
  public Optional<Map<String, Object>> object(String objectKind, String objectName) {
    return objects.stream()
        .filter(o -> objectKind.equals(o.get("kind"))
            && objectName.equals(Maps.string(o, "metadata", "name").orElse(null)))
        .findFirst();
  }

  /** The total number of replicas over all groups. */
  public int totalReplicas() {
    return groups.stream().mapToInt(Group::replicas).sum();
  }

  /**
   * One replica spec: its type, count and restart policy, and the pod template.
   *
   * @param type the replica type as the manifest spells it, e.g. {@code Worker}
   * @param replicas how many instances
   * @param restartPolicy the policy the operator applies
   * @param pod the pod template
   */
  public record Group(String type, int replicas, RestartPolicy restartPolicy, Pod pod) {
    /** The lower-case type used in pod names and TF_CONFIG. */
    public String lowerType() {
      return type.toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The part of a pod template the local cluster honours.
   *
   * @param container the container that runs (the kind's named container, or a Job's first)
   * @param otherContainers names of sidecars that are not run locally
   * @param volumes the pod's volumes
   * @param terminationGraceSeconds how long a stop waits between SIGTERM and SIGKILL
   * @param labels the template's labels
   * @param annotations the template's annotations
   * @param serviceAccountName the template's service account, if named
   */
  public record Pod(Container container, List<String> otherContainers, List<Volume> volumes,
      Optional<Long> terminationGraceSeconds, Map<String, String> labels,
      Map<String, String> annotations, Optional<String> serviceAccountName) {
    /** Copies the collections. */
    public Pod {
      otherContainers = List.copyOf(otherContainers);
      volumes = List.copyOf(volumes);
      labels = Map.copyOf(labels);
      annotations = Map.copyOf(annotations);
    }

    /** The volume named {@code name}, if declared. */
    public Optional<Volume> volume(String name) {
      return volumes.stream().filter(v -> v.name().equals(name)).findFirst();
    }
  }

  /**
   * The container that runs.
   *
   * @param name its name
   * @param command {@code command}, empty to use the build context's command
   * @param args {@code args}
   * @param env {@code env} entries as written (value or valueFrom)
   * @param envFrom {@code envFrom} entries
   * @param workingDir {@code workingDir}, if set
   * @param mounts {@code volumeMounts}
   * @param gpus {@code nvidia.com/gpu} requested (the larger of limits and requests)
   * @param ports container port numbers by port name (unnamed ports under their number)
   * @param resources {@code resources} as written, for resourceFieldRef
   * @param image {@code image} (the podman backend runs it; the sandbox runs the context)
   */
  public record Container(String name, List<String> command, List<String> args,
      List<Map<String, Object>> env, List<Map<String, Object>> envFrom,
      Optional<String> workingDir, List<Mount> mounts, long gpus, Map<String, Integer> ports,
      Map<String, Object> resources, String image) {
    /** Copies the collections. */
    public Container {
      command = List.copyOf(command);
      args = List.copyOf(args);
      env = List.copyOf(env);
      envFrom = List.copyOf(envFrom);
      mounts = List.copyOf(mounts);
      ports = Map.copyOf(ports);
      resources = Map.copyOf(resources);
    }
  }

  /**
   * A {@code volumeMounts} entry.
   *
   * @param name the volume name
   * @param mountPath where it appears in the container
   * @param readOnly whether it is read-only
   * @param subPath the sub-directory of the volume to mount; empty for the whole volume
   */
  public record Mount(String name, String mountPath, boolean readOnly, String subPath) {}

  /**
   * A {@code volumes} entry: its name and its source object as written
   * ({@code {persistentVolumeClaim: {claimName: ...}}}, {@code {emptyDir: {}}}, ...).
   *
   * @param name the volume name
   * @param source the entry without its name
   */
  public record Volume(String name, Map<String, Object> source) {
    /** Copies the source. */
    public Volume {
      source = Map.copyOf(source);
    }
  }

  /**
   * A plain Job's completion settings.
   *
   * @param completions successful pods needed
   * @param parallelism pods running at once
   * @param indexed {@code completionMode: Indexed}
   */
  public record Batch(int completions, int parallelism, boolean indexed) {}
}

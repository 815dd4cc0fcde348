package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.core.PodInfo;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobKinds;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one pod of a job into a {@link PodInfo}: which replica it is (from the operator's labels;
 * for a TrainJob the JobSet's replicated job, {@code node} or an initializer, and the completion
 * index, so node 1 is {@code node-1}),
 * where it runs, and why it is not running, from the pod's conditions and container states
 * (Unschedulable with the scheduler's message, ImagePullBackOff with the image, CrashLoopBackOff,
 * a non-zero exit code).
 */
public final class PodDiagnosis {
  /** Waiting reasons that mean the container will not start without a fix. */
  public static final Set<String> BAD_WAITING = Set.of("ErrImagePull", "ImagePullBackOff",
      "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError",
      "InvalidImageName", "RunContainerError", "ErrImageNeverPull");

  private static final String LABEL = "training.kubeflow.org/";
  private static final List<String> TYPE_LABELS = List.of(LABEL + "replica-type", "replica-type",
      "pytorch-replica-type", "tf-replica-type", "mpi-replica-type");
  private static final List<String> INDEX_LABELS = List.of(LABEL + "replica-index",
      "replica-index", "pytorch-replica-index", "tf-replica-index", "mpi-replica-index");
  private static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
  private static final Pattern TRAILING_INDEX = Pattern.compile("-(\\d+)$");

  private PodDiagnosis() {}

  /**
   * The pod as a {@link PodInfo}; {@code replicaTypes} are the job's replica types as its spec
   * spells them ({@code Master}, {@code PS}), used to restore the case the labels lose.
   */
  public static PodInfo read(Map<String, Object> pod, String kind, List<String> replicaTypes) {
    String name = JsonTree.text(pod, "metadata", "name").orElse("?");
    String phase = JsonTree.text(pod, "status", "phase").orElse("Pending");
    String type = replicaType(pod, kind, replicaTypes);
    int index = replicaIndex(pod, kind, name);
    Optional<String> node = JsonTree.text(pod, "spec", "nodeName");
    String container = trainingContainer(pod, kind);
    List<Map<String, Object>> statuses = JsonTree.maps(pod, "status", "containerStatuses");
    Optional<Map<String, Object>> training = statuses.stream()
        .filter(s -> container.equals(JsonTree.string(s, "name").orElse(""))).findFirst();
    int restarts = statuses.stream()
        .mapToInt(s -> JsonTree.integer(s, "restartCount").orElse(0)).sum();
    Optional<Integer> exitCode = training.flatMap(s -> JsonTree.integer(s, "state",
        "terminated", "exitCode").or(() -> JsonTree.integer(s, "lastState", "terminated",
        "exitCode")));
    Optional<String[]> why = why(pod, phase, training, exitCode);
    return new PodInfo(name, type, index, phase, node, why.map(w -> w[0]),
        why.map(w -> w[1]).filter(m -> !m.isBlank()), restarts, exitCode);
  }

  /** The short replica name used as a log prefix: {@code master-0}. */
  public static String shortName(PodInfo pod) {
    return pod.replicaType().toLowerCase(Locale.ROOT) + "-" + pod.index();
  }

  /** The container whose logs and exit code speak for the pod. */
  public static String trainingContainer(Map<String, Object> pod, String kind) {
    List<Map<String, Object>> containers = JsonTree.maps(pod, "spec", "containers");
    Optional<String> wanted = JobKinds.trainingContainer(kind);
    if (wanted.isPresent() && containers.stream()
        .anyMatch(c -> wanted.get().equals(JsonTree.string(c, "name").orElse("")))) {
      return wanted.get();
    }
    return containers.isEmpty() ? wanted.orElse("")
        : JsonTree.string(containers.get(0), "name").orElse("");
  }

  private static Optional<String[]> why(Map<String, Object> pod, String phase,
      Optional<Map<String, Object>> training, Optional<Integer> exitCode) {
    // 1. A container (init containers first: they run first) that cannot start.
    Optional<String[]> stuck = waiting(pod, true);
    if (stuck.isPresent()) {
      return stuck;
    }
    // 2. The scheduler found no node.
    for (Map<String, Object> condition : JsonTree.maps(pod, "status", "conditions")) {
      if ("PodScheduled".equals(JsonTree.string(condition, "type").orElse(""))
          && "False".equalsIgnoreCase(JsonTree.string(condition, "status").orElse(""))) {
        return Optional.of(new String[] {
            JsonTree.text(condition, "reason").orElse("Unschedulable"),
            JsonTree.text(condition, "message").orElse("")});
      }
    }
    // 3. The pod as a whole (Evicted, DeadlineExceeded, ...).
    Optional<String> podReason = JsonTree.text(pod, "status", "reason");
    if (podReason.isPresent()) {
      return Optional.of(new String[] {podReason.get(),
          JsonTree.text(pod, "status", "message").orElse("")});
    }
    // 4. The training container exited with an error.
    if (exitCode.isPresent() && exitCode.get() != 0 && training.isPresent()) {
      Map<String, Object> terminated = JsonTree.map(training.get(), "state", "terminated");
      if (terminated.isEmpty()) {
        terminated = JsonTree.map(training.get(), "lastState", "terminated");
      }
      String reason = JsonTree.text(terminated, "reason").orElse("Error");
      String message = "exit code " + exitCode.get()
          + JsonTree.text(terminated, "message").map(m -> ": " + m.strip()).orElse("");
      return Optional.of(new String[] {reason, message});
    }
    // 5. Ordinary transitions (ContainerCreating, PodInitializing) while Pending.
    return "Pending".equals(phase) ? waiting(pod, false) : Optional.empty();
  }

  private static Optional<String[]> waiting(Map<String, Object> pod, boolean badOnly) {
    for (String list : List.of("initContainerStatuses", "containerStatuses")) {
      for (Map<String, Object> status : JsonTree.maps(pod, "status", list)) {
        Optional<String> reason = JsonTree.text(status, "state", "waiting", "reason");
        if (reason.isEmpty() || (badOnly && !BAD_WAITING.contains(reason.get()))) {
          continue;
        }
        String message = JsonTree.text(status, "state", "waiting", "message").orElse("");
        String image = JsonTree.text(status, "image").orElseGet(() -> imageOf(pod,
            JsonTree.string(status, "name").orElse("")));
        if (reason.get().contains("Image") && !image.isEmpty() && !message.contains(image)) {
          message = (message.isEmpty() ? "" : message + " ") + "(image " + image + ")";
        }
        if (list.equals("initContainerStatuses")) {
          message = "init container " + JsonTree.string(status, "name").orElse("?") + ": "
              + message;
        }
        return Optional.of(new String[] {reason.get(), message.strip()});
      }
    }
    return Optional.empty();
  }

  private static String imageOf(Map<String, Object> pod, String container) {
    for (String list : List.of("initContainers", "containers")) {
      for (Map<String, Object> c : JsonTree.maps(pod, "spec", list)) {
        if (container.equals(JsonTree.string(c, "name").orElse(""))) {
          return JsonTree.text(c, "image").orElse("");
        }
      }
    }
    return "";
  }

  private static String replicaType(Map<String, Object> pod, String kind,
      List<String> replicaTypes) {
    if (JobKinds.isBatch(kind)) {
      return JobKinds.BATCH_REPLICA_TYPE;
    }
    if (JobKinds.servesModel(kind)) {
      return JobKinds.PREDICTOR_REPLICA_TYPE;
    }
    Map<String, Object> labels = JsonTree.map(pod, "metadata", "labels");
    if (JobKinds.isTrainJob(kind)) {
      // As the Trainer's SDK names its steps: node-<index>, dataset-initializer...
      return JsonTree.text(labels, TrainJobs.REPLICATED_JOB_LABEL).orElse("Unknown");
    }
    for (String label : TYPE_LABELS) {
      Optional<String> value = JsonTree.text(labels, label);
      if (value.isPresent()) {
        return replicaTypes.stream().filter(t -> t.equalsIgnoreCase(value.get())).findFirst()
            .orElseGet(() -> capitalize(value.get()));
      }
    }
    return "Unknown";
  }

  private static int replicaIndex(Map<String, Object> pod, String kind, String name) {
    Map<String, Object> labels = JsonTree.map(pod, "metadata", "labels");
    for (String label : INDEX_LABELS) {
      Optional<Integer> index = JsonTree.integer(labels, label);
      if (index.isPresent()) {
        return index.get();
      }
    }
    Optional<Integer> completion = JsonTree.integer(labels, COMPLETION_INDEX)
        .or(() -> JsonTree.integer(JsonTree.map(pod, "metadata", "annotations"),
            COMPLETION_INDEX));
    if (completion.isPresent()) {
      return completion.get();
    }
    // Operator pods end in -<index>; a batch Job's random suffix may be all digits, so not there.
    Matcher matcher = TRAILING_INDEX.matcher(name);
    if (!JobKinds.isBatch(kind) && matcher.find() && matcher.group(1).length() < 6) {
      return Integer.parseInt(matcher.group(1));
    }
    return 0;
  }

  private static String capitalize(String value) {
    return value.isEmpty() ? value
        : value.substring(0, 1).toUpperCase(Locale.ROOT) + value.substring(1);
  }
}

package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What the downward API would tell a replica about its pod: name, namespace, node, labels and
 * annotations (the template's plus those the operator or the Job controller adds), so
 * {@code fieldRef}s in the manifest resolve locally.
 *
 * @param podName the pod name
 * @param namespace the namespace
 * @param node the node name: this machine's host name
 * @param uid a stable per-pod UID
 * @param serviceAccount the service account name
 * @param labels pod labels
 * @param annotations pod annotations
 */
public record PodFacts(String podName, String namespace, String node, String uid,
    String serviceAccount, Map<String, String> labels, Map<String, String> annotations) {

  /** Copies the maps. */
  public PodFacts {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }

  /** The facts for {@code replica} of {@code plan} on host {@code node}. */
  public static PodFacts of(JobPlan plan, ReplicaId replica, String node) {
    JobPlan.Pod pod = plan.group(replica.type()).orElseThrow().pod();
    Map<String, String> labels = new LinkedHashMap<>(pod.labels());
    Map<String, String> annotations = new LinkedHashMap<>(pod.annotations());
    String index = String.valueOf(replica.index());
    if (plan.kind() == LocalKind.TRAINJOB) {
      // What JobSet and the Job controller put on a node pod (CONTRACT.md (b)).
      String job = TrainJobs.jobName(plan.name(), replica.type());
      labels.put(TrainJobs.JOBSET_NAME_LABEL, plan.name());
      labels.put(TrainJobs.REPLICATED_JOB_LABEL, replica.type());
      labels.put("jobset.sigs.k8s.io/job-index", "0");
      labels.put("batch.kubernetes.io/job-name", job);
      labels.put("job-name", job);
      labels.put(TrainJobs.COMPLETION_INDEX, index);
      annotations.put(TrainJobs.COMPLETION_INDEX, index);
    } else if (plan.kind().isKubeflow()) {
      labels.put("training.kubeflow.org/job-name", plan.name());
      labels.put("training.kubeflow.org/replica-type", replica.type().toLowerCase(
          java.util.Locale.ROOT));
      labels.put("training.kubeflow.org/replica-index", index);
      labels.put("training.kubeflow.org/operator-name",
          plan.kind().kind().toLowerCase(java.util.Locale.ROOT) + "-controller");
      if (isRoleMaster(plan, replica)) {
        labels.put("training.kubeflow.org/job-role", "master");
      }
    } else if (plan.kind() == LocalKind.DEPLOYMENT) {
      // A ReplicaSet's pods carry the template's labels (and a hash no script reads).
      labels.putIfAbsent("pod-template-hash", "local");
    } else {
      labels.put("job-name", plan.name());
      labels.put("batch.kubernetes.io/job-name", plan.name());
      if (plan.batch().map(JobPlan.Batch::indexed).orElse(false)) {
        labels.put("batch.kubernetes.io/job-completion-index", index);
        annotations.put("batch.kubernetes.io/job-completion-index", index);
      }
    }
    String uid = UUID.nameUUIDFromBytes((plan.namespace() + "/" + replica.podName())
        .getBytes(StandardCharsets.UTF_8)).toString();
    return new PodFacts(replica.podName(), plan.namespace(), node, uid,
        pod.serviceAccountName().orElse("default"), labels, annotations);
  }

  /** The Master or Chief, or worker-0 when there is neither (CONTRACT.md, pod labels). */
  static boolean isRoleMaster(JobPlan plan, ReplicaId replica) {
    boolean hasMaster = plan.groups().stream()
        .anyMatch(g -> g.type().equals("Master") || g.type().equals("Chief"));
    if (hasMaster) {
      return replica.type().equals("Master") || replica.type().equals("Chief");
    }
    return replica.type().equals("Worker") && replica.index() == 0;
  }
}

package dev.fairing4j.deployer.kubernetes;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Plays, against a real API server with the Trainer v2 and JobSet CRDs, what the Kubeflow
 * Trainer and JobSet controllers (and the node) do for a TrainJob (CONTRACT.md (b), (d)): the
 * JobSet of the TrainJob's name owned by it, the batch Job {@code <job>-node-0} owned by the
 * JobSet (run by this player: {@code spec.managedBy}, so the Job controller leaves it alone),
 * the node pods {@code <job>-node-0-<i>-xxxxx} owned by that Job with the JobSet's labels and
 * the completion index, and the TrainJob's conditions and {@code jobsStatus} through its
 * {@code /status}. Requests go as the fixture user ({@link PlayedOperator}), so the audit log
 * holds only the SDK's.
 */
final class PlayedTrainer {
  private final PlayedOperator node;
  private final String namespace;

  /** Plays in {@code namespace}; makes its {@code default} service account. */
  PlayedTrainer(KubeApiServer server, String namespace) {
    this.node = new PlayedOperator(server, namespace);
    this.namespace = namespace;
  }

  /** The player of pods, events and plain requests underneath. */
  PlayedOperator node() {
    return node;
  }

  /** The namespace's TrainJobs. */
  String trainJobs() {
    return "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + namespace + "/trainjobs";
  }

  /** The namespace's JobSets. */
  String jobSets() {
    return "/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + namespace + "/jobsets";
  }

  /**
   * Creates ClusterTrainingRuntime {@code name} from the shipped {@code torch_distributed.yaml}
   * (v2.3.0) unless it exists: runtimes are cluster-wide, so tests share them.
   */
  static void clusterRuntime(KubeApiServer server, String name) {
    Map<String, Object> runtime = yaml("kubeflow/trainer/runtimes/torch_distributed.yaml");
    JsonTree.map(runtime, "metadata").put("name", name);
    KubeApiServer.Response response = server.send("POST",
        "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes", runtime);
    if (response.status() != 201 && response.status() != 409) {
      throw new AssertionError("creating ClusterTrainingRuntime " + name + ": " + response);
    }
  }

  /** A YAML test resource as a JSON-like map. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> yaml(String resource) {
    try (InputStream in = PlayedTrainer.class.getClassLoader().getResourceAsStream(resource)) {
      return JsonTree.mutableCopy(new YAMLMapper().readValue(in, Map.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * What the controllers create for TrainJob {@code job} with {@code nodes} nodes: its JobSet and
   * the Job {@code <job>-node-0}, each owned by the one before.
   */
  void jobSetAndJob(String job, int nodes) {
    node.post(jobSets(), """
        {"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
         "metadata":{"name":"%s","ownerReferences":[%s]},
         "spec":{"replicatedJobs":[{"name":"node","replicas":1,"template":{"spec":{
           "parallelism":%d,"completions":%d,"completionMode":"Indexed","template":{"spec":{
             "restartPolicy":"OnFailure","containers":[{"name":"node","image":"%s"}]}}}}}]}}
        """.formatted(job, owner("trainer.kubeflow.org/v1alpha1", "TrainJob", job,
        node.uid(trainJobs(), job)), nodes, nodes, TestJobs.IMAGE));
    String jobName = job + "-node-0";
    node.post(node.batchJobs(), """
        {"apiVersion":"batch/v1","kind":"Job",
         "metadata":{"name":"%s","labels":{"jobset.sigs.k8s.io/jobset-name":"%s",
           "jobset.sigs.k8s.io/replicatedjob-name":"node"},"ownerReferences":[%s]},
         "spec":{"managedBy":"%s","parallelism":%d,"completions":%d,"completionMode":"Indexed",
          "template":{"spec":{"restartPolicy":"OnFailure",
            "containers":[{"name":"node","image":"%s"}]}}}}
        """.formatted(jobName, job, owner("jobset.x-k8s.io/v1alpha2", "JobSet", job,
        node.uid(jobSets(), job)), PlayedOperator.MANAGED_BY, nodes, nodes, TestJobs.IMAGE));
  }

  /**
   * Node pod {@code index} of TrainJob {@code job} ({@code <job>-node-0-<index>-x7k2p}, owned by
   * its Job, labelled as JobSet and the Job controller label it), asking for {@code gpus} GPUs,
   * on {@code nodeName} when given; then {@code statusJson} as the kubelet writes it.
   */
  Map<String, Object> pod(String job, int index, int gpus, String nodeName, String statusJson) {
    String jobName = job + "-node-0";
    return node.pod("""
        {"apiVersion":"v1","kind":"Pod",
         "metadata":{"name":"%s-%d-x7k2p","labels":{"jobset.sigs.k8s.io/jobset-name":"%s",
           "jobset.sigs.k8s.io/replicatedjob-name":"node","jobset.sigs.k8s.io/job-index":"0",
           "batch.kubernetes.io/job-name":"%s","batch.kubernetes.io/job-completion-index":"%d"},
           "annotations":{"batch.kubernetes.io/job-completion-index":"%d"},
           "ownerReferences":[%s]},
         "spec":{%s"hostname":"%s-%d","subdomain":"%s",
           "containers":[{"name":"node","image":"%s","resources":{"limits":{"nvidia.com/gpu":"%d"}}}]}}
        """.formatted(jobName, index, job, jobName, index, index, owner("batch/v1", "Job",
        jobName, node.uid(node.batchJobs(), jobName)), nodeName == null ? ""
        : "\"nodeName\":\"" + nodeName + "\",", jobName, index, job, TestJobs.IMAGE, gpus),
        statusJson);
  }

  /** Replaces the TrainJob's status (conditions and jobsStatus) as the controller writes it. */
  void status(String job, String statusJson) {
    node.jobStatus(trainJobs() + "/" + job, statusJson);
  }

  /** One condition as the Trainer writes it. */
  static String condition(String type, String status, String reason, String message) {
    return "{\"type\":\"" + type + "\",\"status\":\"" + status + "\",\"reason\":\"" + reason
        + "\",\"message\":\"" + message + "\",\"lastTransitionTime\":\"2026-11-24T12:00:00Z\"}";
  }

  /** The trainer job's {@code jobsStatus} entry as the controller copies it from the JobSet. */
  static String nodeJob(int ready, int active, int succeeded, int failed) {
    return "[{\"name\":\"node\",\"ready\":" + ready + ",\"active\":" + active + ",\"succeeded\":"
        + succeeded + ",\"failed\":" + failed + ",\"suspended\":0}]";
  }

  private static String owner(String apiVersion, String kind, String name, String uid) {
    return "{\"apiVersion\":\"" + apiVersion + "\",\"kind\":\"" + kind + "\",\"name\":\"" + name
        + "\",\"uid\":\"" + uid + "\",\"controller\":true,\"blockOwnerDeletion\":true}";
  }

  /** The TrainJob as stored. */
  Map<String, Object> trainJob(String job) {
    return node.get(trainJobs() + "/" + job).orElseThrow();
  }

  @Override
  public String toString() {
    return "PlayedTrainer[" + namespace + "]";
  }
}

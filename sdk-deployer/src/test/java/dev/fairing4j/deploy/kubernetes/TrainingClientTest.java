package dev.fairing4j.deploy.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.TrainingClient;
import dev.fairing4j.deploy.monitor.JobDetails;
import dev.fairing4j.deploy.monitor.JobGpus;
import dev.fairing4j.deploy.monitor.JobList;
import dev.fairing4j.deploy.monitor.JobSummary;
import dev.fairing4j.deploy.monitor.NodeGpus;
import dev.fairing4j.deploy.monitor.TopJobs;
import dev.fairing4j.deploy.monitor.TopNodes;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Arena's verbs against the CRUD mock: list, get, attach, top, delete, namespaces. */
class TrainingClientTest {
  private static final String NS = "team";
  private static final String KUBEFLOW = "/apis/kubeflow.org/v1/namespaces/" + NS;
  private static final String BATCH = "/apis/batch/v1/namespaces/" + NS + "/jobs";

  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  private final MockObjects mock = new MockObjects(K8S);
  private TrainingClient client;

  @BeforeEach
  void cluster() {
    K8S.reset();
    client = TrainingClient.connect(Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST)).inNamespace(NS);
    job("pytorchjobs", "PyTorchJob", "mnist", "pytorchReplicaSpecs", "Running");
    job("tfjobs", "TFJob", "resnet", "tfReplicaSpecs", "Succeeded");
    mock.post(BATCH, batchJob("prep", true));
    mock.mergePatch(BATCH + "/prep/status", "{\"status\":{\"conditions\":["
        + KubernetesJobHandleTest.condition("Complete", "True", "Completed", "") + "]}}");
    mock.post(BATCH, batchJob("not-ours", false));
    pod(NS, "mnist-master-0", kubeflowLabels("mnist", "master", 0), "PyTorchJob", "mnist",
        "nvidia.com/gpu", 2, "gpu-node-1", "Running");
    pod(NS, "mnist-worker-0", kubeflowLabels("mnist", "worker", 0), "PyTorchJob", "mnist",
        "nvidia.com/gpu", 2, null, "Pending");
    pod(NS, "resnet-chief-0", kubeflowLabels("resnet", "chief", 0), "TFJob", "resnet",
        "amd.com/gpu", 1, "gpu-node-2", "Succeeded");
    pod(NS, "prep-x7k2p", "{\"job-name\":\"prep\"}", "Job", "prep", "nvidia.com/gpu", 0,
        "cpu-node", "Succeeded");
    pod("other-team", "notebook-0", "{\"app\":\"notebook\"}", "StatefulSet", "notebook",
        "nvidia.com/gpu", 1, "gpu-node-1", "Running");
    node("gpu-node-1", "{\"nvidia.com/gpu\":\"4\",\"cpu\":\"32\"}");
    node("gpu-node-2", "{\"amd.com/gpu\":\"2\"}");
    node("cpu-node", "{\"cpu\":\"16\"}");
  }

  private void job(String plural, String kind, String name, String specs, String phase) {
    mock.post(KUBEFLOW + "/" + plural, """
        {"apiVersion":"kubeflow.org/v1","kind":"%s","metadata":{"name":"%s",
         "creationTimestamp":"2024-05-01T12:00:00Z"},
         "spec":{"%s":{"Master":{"replicas":1},"Worker":{"replicas":1},"Chief":{"replicas":1}}}}
        """.formatted(kind, name, specs));
    mock.mergePatch(KUBEFLOW + "/" + plural + "/" + name + "/status", "{\"status\":{"
        + "\"conditions\":[" + KubernetesJobHandleTest.condition(phase, "True", kind + phase, "")
        + "]}}");
  }

  private static String batchJob(String name, boolean ours) {
    return """
        {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"%s","labels":{%s}},
         "spec":{"template":{"spec":{"restartPolicy":"Never",
           "containers":[{"name":"main","image":"busybox"}]}}}}
        """.formatted(name, ours ? "\"app.kubernetes.io/managed-by\":\"fairing4j\"" : "");
  }

  private static String kubeflowLabels(String job, String type, int index) {
    return """
        {"training.kubeflow.org/job-name":"%s","training.kubeflow.org/replica-type":"%s",
         "training.kubeflow.org/replica-index":"%d"}""".formatted(job, type, index);
  }

  private void pod(String namespace, String name, String labels, String ownerKind, String owner,
      String gpuResource, int gpus, String node, String phase) {
    mock.post("/api/v1/namespaces/" + namespace + "/pods", """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","labels":%s,
          "ownerReferences":[{"apiVersion":"x/v1","kind":"%s","name":"%s","uid":"u",
            "controller":true}]},
         "spec":{%s"containers":[{"name":"main","image":"img",
           "resources":{"limits":{"%s":"%d"}}}]},
         "status":{"phase":"%s"}}
        """.formatted(name, labels, ownerKind, owner,
        node == null ? "" : "\"nodeName\":\"" + node + "\",", gpuResource, gpus, phase));
  }

  private void node(String name, String allocatable) {
    mock.post("/api/v1/nodes", "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
        + "\"metadata\":{\"name\":\"" + name + "\"},\"status\":{\"allocatable\":"
        + allocatable + "}}");
  }

  @Test
  void listShowsTheTrainingJobsOfTheNamespaceAsATable() {
    JobList list = client.list();

    assertThat(list.jobs()).extracting(JobSummary::name, JobSummary::trainer,
        JobSummary::status).containsExactly(
            org.assertj.core.groups.Tuple.tuple("mnist", "PyTorchJob", JobPhase.RUNNING),
            org.assertj.core.groups.Tuple.tuple("prep", "Job", JobPhase.SUCCEEDED),
            org.assertj.core.groups.Tuple.tuple("resnet", "TFJob", JobPhase.SUCCEEDED));
    assertThat(list.jobs().get(0).node()).contains("gpu-node-1"); // the master's, not pending
    assertThat(list.jobs().get(1).node()).contains("cpu-node");
    List<String> lines = list.toString().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).startsWith("NAME    STATUS     TRAINER     AGE");
    assertThat(lines.get(1)).startsWith("mnist   Running    PyTorchJob  ")
        .endsWith("gpu-node-1");
    int status = lines.get(0).indexOf("STATUS");
    assertThat(lines).allSatisfy(l -> assertThat(l.charAt(status - 1)).isEqualTo(' '));
    assertThat(lines.get(3).indexOf("Succeeded")).isEqualTo(status);
    assertThat(list.toHtml()).contains("<th>NAME</th>", "<td>mnist</td>", "<td>gpu-node-1</td>")
        .doesNotContain("not-ours");
    assertThat(list.toString()).doesNotContain("not-ours");
  }

  @Test
  void getShowsTheWarningEventsThatExplainAStuckJob() {
    mock.post("/api/v1/namespaces/" + NS + "/events", """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"mnist.1"},"type":"Warning",
         "reason":"FailedScheduling","message":"0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
         "involvedObject":{"kind":"Pod","name":"mnist-worker-0"},
         "lastTimestamp":"2024-05-01T12:00:00Z"}
        """);

    JobDetails details = client.get("mnist");

    assertThat(details.status().warnings()).singleElement().asString()
        .contains("FailedScheduling", "Insufficient nvidia.com/gpu");
    assertThat(details.toString()).contains("\n\nEVENTS\n")
        .contains("Insufficient nvidia.com/gpu");
    assertThat(details.toHtml()).contains("<th>EVENTS</th>");
  }

  @Test
  void getShowsTheJobAndItsInstances() {
    JobDetails details = client.get("mnist");

    assertThat(details.summary().status()).isEqualTo(JobPhase.RUNNING);
    assertThat(details.instances()).extracting(PodInfo::name, PodInfo::phase)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("mnist-master-0", "Running"),
            org.assertj.core.groups.Tuple.tuple("mnist-worker-0", "Pending"));
    assertThat(details.instances().get(0).node()).contains("gpu-node-1");
    assertThat(details.toString()).contains("Name: mnist", "Trainer: PyTorchJob",
        "INSTANCE", "mnist-master-0  Running  gpu-node-1");
    assertThat(details.toHtml()).contains("<td>mnist-worker-0</td>");
    assertThatThrownBy(() -> client.get("nope")).isInstanceOf(FairingException.class)
        .hasMessageContaining("no PyTorchJob, TFJob or fairing4j batch Job named 'nope'");
  }

  @Test
  void attachFindsTheKindAndIgnoresBatchJobsTheSdkDidNotCreate() {
    assertThat(client.attach("mnist").kind()).isEqualTo("PyTorchJob");
    assertThat(client.attach("resnet").kind()).isEqualTo("TFJob");
    assertThat(client.attach("prep").kind()).isEqualTo("Job");
    assertThat(client.attach("resnet").status().phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(client.attach("mnist").namespace()).isEqualTo(NS);
    assertThatThrownBy(() -> client.attach("not-ours")).isInstanceOf(FairingException.class);
  }

  @Test
  void topJobsCountsRequestedAndAllocatedGpus() {
    TopJobs top = client.topJobs();

    assertThat(top.jobs()).extracting(JobGpus::name, JobGpus::requested, JobGpus::allocated)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("mnist", 4, 2),
            org.assertj.core.groups.Tuple.tuple("prep", 0, 0),
            org.assertj.core.groups.Tuple.tuple("resnet", 1, 0));
    assertThat(top.requested()).isEqualTo(5);
    assertThat(top.allocated()).isEqualTo(2);
    assertThat(top.toString().lines().toList()).last().asString()
        .matches("TOTAL\\s+5\\s+2");
    assertThat(top.toHtml()).contains("<th>GPU(Requested)</th>");
  }

  @Test
  void topNodesCountsAllocatableAndHeldGpusAcrossNamespaces() {
    TopNodes top = client.topNodes();

    assertThat(top.nodes()).extracting(NodeGpus::node, NodeGpus::total, NodeGpus::allocated)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("cpu-node", 0, 0),
            org.assertj.core.groups.Tuple.tuple("gpu-node-1", 4, 3),
            org.assertj.core.groups.Tuple.tuple("gpu-node-2", 2, 0));
    assertThat(top.toString()).contains("GPU(Total)").containsPattern("TOTAL\\s+6\\s+3");
  }

  @Test
  void inNamespaceDerivesAClientAndLeavesThisOneAlone() {
    TrainingClient other = client.inNamespace("other-team");

    assertThat(other.namespace()).isEqualTo("other-team");
    assertThat(client.namespace()).isEqualTo(NS);
    assertThat(other.list().jobs()).isEmpty();
    assertThat(TrainingClient.connect(Clusters.kubernetes().kubeconfig(K8S.kubeconfig()))
        .namespace()).isEqualTo(KubernetesApiFixture.NAMESPACE);
  }

  @Test
  void deleteRemovesTheJob() {
    client.delete("resnet");

    assertThat(client.list().jobs()).extracting(JobSummary::name).containsExactly("mnist", "prep");
    assertThatThrownBy(() -> client.attach("resnet")).isInstanceOf(FairingException.class);
    assertThat(client.logs("mnist").toString()).contains("mnist");
  }
}

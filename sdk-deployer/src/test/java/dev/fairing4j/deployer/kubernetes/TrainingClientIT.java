package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.monitor.JobDetails;
import dev.fairing4j.deployer.monitor.JobGpus;
import dev.fairing4j.deployer.monitor.JobList;
import dev.fairing4j.deployer.monitor.JobSummary;
import dev.fairing4j.deployer.monitor.NodeGpus;
import dev.fairing4j.deployer.monitor.TopJobs;
import dev.fairing4j.deployer.monitor.TopNodes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Arena's verbs against a real API server: list, get, attach, top jobs, top nodes (over Node
 * objects the test creates, as kubelets register them, and pods of another namespace), delete
 * (carried out by kube-controller-manager's garbage collector) and namespaces. The test plays
 * the operator, the scheduler and the kubelets ({@link PlayedOperator}).
 */
@Timeout(120)
class TrainingClientIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  private final List<String> nodes = new ArrayList<>();
  private PlayedOperator operator;
  private String ns;
  private String otherNs;
  private String gpuNode1;
  private String gpuNode2;
  private String cpuNode;
  private TrainingClient client;

  @BeforeEach
  void cluster() {
    ns = K8S.namespace();
    otherNs = K8S.server().createNamespace("other-team");
    operator = new PlayedOperator(K8S.server(), ns);
    // Nodes belong to the whole cluster: names of this test's own keep other tests' apart.
    String suffix = ns.substring(ns.lastIndexOf('-'));
    gpuNode1 = "gpu-node-1" + suffix;
    gpuNode2 = "gpu-node-2" + suffix;
    cpuNode = "cpu-node" + suffix;
    client = TrainingClient.connect(Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST)).inNamespace(ns);

    operator.pyTorchJob("mnist", 1, false);
    operator.pyTorchPhase("mnist", "Running");
    operator.tfJob("resnet");
    operator.jobStatus(operator.kubeflow("tfjobs") + "/resnet", "{\"conditions\":["
        + PlayedOperator.conditions("TFJob", "resnet", "Succeeded") + "]}");
    operator.batchJob("prep", true);
    operator.jobStatus(operator.batchJobs() + "/prep", "{\"startTime\":\"2024-05-01T12:00:00Z\","
        + "\"completionTime\":\"2024-05-01T12:10:00Z\",\"succeeded\":1,\"conditions\":["
        + PlayedOperator.condition("SuccessCriteriaMet", "True", "CompletionsReached", "") + ","
        + PlayedOperator.condition("Complete", "True", "CompletionsReached", "") + "]}");
    operator.batchJob("not-ours", false);

    pod(ns, "mnist-master-0", kubeflowLabels("mnist", "master", 0),
        owner("PyTorchJob", "mnist", operator.kubeflow("pytorchjobs")), "nvidia.com/gpu", 2,
        gpuNode1, "Running");
    pod(ns, "mnist-worker-0", kubeflowLabels("mnist", "worker", 0),
        owner("PyTorchJob", "mnist", operator.kubeflow("pytorchjobs")), "nvidia.com/gpu", 2,
        null, "Pending");
    pod(ns, "resnet-chief-0", kubeflowLabels("resnet", "chief", 0),
        owner("TFJob", "resnet", operator.kubeflow("tfjobs")), "amd.com/gpu", 1, gpuNode2,
        "Succeeded");
    pod(ns, "prep-x7k2p", "{\"job-name\":\"prep\",\"batch.kubernetes.io/job-name\":\"prep\"}",
        owner("Job", "prep", operator.batchJobs()), "nvidia.com/gpu", 0, cpuNode, "Succeeded");
    pod(otherNs, "notebook-0", "{\"app\":\"notebook\"}", "", "nvidia.com/gpu", 1, gpuNode1,
        "Running");
    node(gpuNode1, "{\"nvidia.com/gpu\":\"4\",\"cpu\":\"32\"}");
    node(gpuNode2, "{\"amd.com/gpu\":\"2\"}");
    node(cpuNode, "{\"cpu\":\"16\"}");
  }

  @AfterEach
  void removeNodes() {
    nodes.forEach(n -> operator.delete("/api/v1/nodes/" + n));
  }

  private static String kubeflowLabels(String job, String type, int index) {
    return """
        {"training.kubeflow.org/job-name":"%s","training.kubeflow.org/replica-type":"%s",
         "training.kubeflow.org/replica-index":"%d"}""".formatted(job, type, index);
  }

  private String owner(String kind, String name, String collection) {
    String apiVersion = kind.equals("Job") ? "batch/v1" : "kubeflow.org/v1";
    return """
        ,"ownerReferences":[{"apiVersion":"%s","kind":"%s","name":"%s","uid":"%s",
          "controller":true,"blockOwnerDeletion":true}]
        """.formatted(apiVersion, kind, name, operator.uid(collection, name));
  }

  private void pod(String namespace, String name, String labels, String owner,
      String gpuResource, int gpus, String node, String phase) {
    PlayedOperator in = namespace.equals(ns) ? operator
        : new PlayedOperator(K8S.server(), namespace);
    in.pod("""
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","labels":%s%s},
         "spec":{%s"containers":[{"name":"main","image":"img",
           "resources":{"limits":{"%s":"%d"}}}]}}
        """.formatted(name, labels, owner,
        node == null ? "" : "\"nodeName\":\"" + node + "\",", gpuResource, gpus),
        "{\"phase\":\"" + phase + "\"}");
  }

  /** Registers a node as its kubelet would, with what it can allocate. */
  private void node(String name, String allocatable) {
    operator.post("/api/v1/nodes", "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
        + "\"metadata\":{\"name\":\"" + name + "\"}}");
    nodes.add(name);
    operator.mergePatch("/api/v1/nodes/" + name + "/status",
        "{\"status\":{\"allocatable\":" + allocatable + ",\"capacity\":" + allocatable + "}}");
  }

  @Test
  void listShowsTheTrainingJobsOfTheNamespaceAsATable() {
    JobList list = client.list();

    assertThat(list.jobs()).extracting(JobSummary::name, JobSummary::trainer,
        JobSummary::status).containsExactly(
            tuple("mnist", "PyTorchJob", JobPhase.RUNNING),
            tuple("prep", "Job", JobPhase.SUCCEEDED),
            tuple("resnet", "TFJob", JobPhase.SUCCEEDED));
    assertThat(list.jobs().get(0).node()).contains(gpuNode1); // the master's, not pending
    assertThat(list.jobs().get(1).node()).contains(cpuNode);
    assertThat(list.jobs()).allSatisfy(j -> assertThat(j.created()).isPresent());
    List<String> all = list.toString().lines().toList();
    assertThat(all).hasSize(5);
    assertThat(all.get(4)).startsWith("namespace " + ns + " (every namespace: client.listAll()");
    List<String> lines = all.subList(0, 4);
    assertThat(lines.get(0)).startsWith("NAME    STATUS     TRAINER     AGE");
    assertThat(lines.get(1)).startsWith("mnist   Running    PyTorchJob  ").endsWith(gpuNode1);
    int status = lines.get(0).indexOf("STATUS");
    assertThat(lines).allSatisfy(l -> assertThat(l.charAt(status - 1)).isEqualTo(' '));
    assertThat(lines.get(3).indexOf("Succeeded")).isEqualTo(status);
    assertThat(list.toHtml()).contains("<th>NAME</th>", "<td>mnist</td>",
        "<td>" + gpuNode1 + "</td>").doesNotContain("not-ours");
    assertThat(list.toString()).doesNotContain("not-ours");

    // Every namespace, kubectl get -A style: this one's jobs with their namespace.
    JobList everywhere = client.listAll();
    assertThat(everywhere.namespace()).isEmpty();
    assertThat(everywhere.jobs()).filteredOn(j -> j.namespace().equals(ns))
        .extracting(JobSummary::name).containsExactly("mnist", "prep", "resnet");
    assertThat(everywhere.toString()).startsWith("NAMESPACE").contains(ns + "  mnist")
        .doesNotContain("not-ours");
  }

  @Test
  void getShowsTheWarningEventsThatExplainAStuckJob() {
    operator.warning("FailedScheduling", "Pod", "mnist-worker-0",
        "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
        Instant.parse("2024-05-01T12:00:00Z"));

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
        .containsExactly(tuple("mnist-master-0", "Running"), tuple("mnist-worker-0", "Pending"));
    assertThat(details.instances().get(0).node()).contains(gpuNode1);
    assertThat(details.toString()).contains("Name: mnist", "Trainer: PyTorchJob",
        "INSTANCE", "mnist-master-0  Running  " + gpuNode1);
    assertThat(details.toHtml()).contains("<td>mnist-worker-0</td>");
    assertThatThrownBy(() -> client.get("nope")).isInstanceOf(FairingException.class)
        .hasMessageContaining("no PyTorchJob, TFJob, XGBoostJob, TrainJob or fairing4j batch Job"
            + " named 'nope'");
  }

  @Test
  void attachFindsTheKindAndIgnoresBatchJobsTheSdkDidNotCreate() {
    assertThat(client.attach("mnist").kind()).isEqualTo("PyTorchJob");
    assertThat(client.attach("resnet").kind()).isEqualTo("TFJob");
    assertThat(client.attach("prep").kind()).isEqualTo("Job");
    assertThat(client.attach("resnet").status().phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(client.attach("mnist").namespace()).isEqualTo(ns);
    assertThatThrownBy(() -> client.attach("not-ours")).isInstanceOf(FairingException.class);
  }

  @Test
  void topJobsCountsRequestedAndAllocatedGpus() {
    TopJobs top = client.topJobs();

    assertThat(top.jobs()).extracting(JobGpus::name, JobGpus::requested, JobGpus::allocated)
        .containsExactly(tuple("mnist", 4, 2), tuple("prep", 0, 0), tuple("resnet", 1, 0));
    assertThat(top.requested()).isEqualTo(5);
    assertThat(top.allocated()).isEqualTo(2);
    assertThat(top.toString().lines().toList()).last().asString()
        .matches("TOTAL\\s+5\\s+2");
    assertThat(top.toHtml()).contains("<th>GPU(Requested)</th>");
  }

  @Test
  void topNodesCountsAllocatableAndHeldGpusAcrossNamespaces() {
    TopNodes top = client.topNodes();

    assertThat(top.nodes()).filteredOn(n -> nodes.contains(n.node()))
        .extracting(NodeGpus::node, NodeGpus::total, NodeGpus::allocated)
        .containsExactly(tuple(cpuNode, 0, 0), tuple(gpuNode1, 4, 3), tuple(gpuNode2, 2, 0));
    // The whole cluster's total; only this test's nodes when no other test left any.
    int total = top.nodes().stream().mapToInt(NodeGpus::total).sum();
    int allocated = top.nodes().stream().mapToInt(NodeGpus::allocated).sum();
    assertThat(top.toString()).contains("GPU(Total)")
        .containsPattern("TOTAL\\s+" + total + "\\s+" + allocated);
  }

  @Test
  void inNamespaceDerivesAClientAndLeavesThisOneAlone() {
    TrainingClient other = client.inNamespace(otherNs);

    assertThat(other.namespace()).isEqualTo(otherNs);
    assertThat(client.namespace()).isEqualTo(ns);
    assertThat(other.list().jobs()).isEmpty();
    assertThat(TrainingClient.connect(Clusters.kubernetes().kubeconfig(K8S.kubeconfig()))
        .namespace()).isEqualTo(ns);
  }

  @Test
  void deleteRemovesTheJob() {
    client.delete("resnet");

    assertThat(client.list().jobs()).extracting(JobSummary::name).containsExactly("mnist", "prep");
    assertThatThrownBy(() -> client.attach("resnet")).isInstanceOf(FairingException.class);
    // Foreground: the job went after what it owns.
    assertThat(operator.get(operator.pods() + "/resnet-chief-0")).isEmpty();
    assertThat(client.logs("mnist").toString()).contains("mnist");
  }
}

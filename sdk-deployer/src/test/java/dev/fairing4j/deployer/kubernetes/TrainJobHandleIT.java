package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.MetricPoint;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.monitor.JobDetails;
import dev.fairing4j.deployer.monitor.JobGpus;
import dev.fairing4j.deployer.monitor.JobSummary;
import dev.fairing4j.deployer.trainer.TrainJobDeployer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A TrainJob submitted and followed through the SDK against a real API server with the Trainer
 * v2.3.0 and JobSet v0.12.0 CRDs and kube-controller-manager (garbage collection), the test
 * playing the Trainer, JobSet and the node ({@link PlayedTrainer}): the pre-flight (the runtime
 * exists, else the runtimes that do; the Trainer's shape read once), a strict create, status
 * from conditions, jobsStatus and pods, the failure report with the node's exit code and the
 * events of the TrainJob, its JobSet and Job, Kueue's queue, suspend, logs read from container
 * {@code node}, deletion cascading to JobSet, Jobs and pods, and TrainingClient's verbs.
 */
@Timeout(120)
class TrainJobHandleIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers()
      .withCrds(KubeApiServer.TRAINER_V2_CRDS);

  private PlayedTrainer trainer;
  private KubernetesCluster cluster;
  private String ns;

  @BeforeEach
  void cluster() {
    ns = K8S.namespace();
    trainer = new PlayedTrainer(K8S.server(), ns);
    PlayedTrainer.clusterRuntime(K8S.server(), "torch-distributed");
    // Fast polls; deletions wait longer: the garbage collector finds CRDs applied after it
    // started (TrainJob, JobSet) only at its next discovery, up to 30 s later.
    cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(
        new dev.fairing4j.deployer.kubernetes.internal.transport.Timings(Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofSeconds(90)));
  }

  private TrainingJob submit(TrainJobDeployer deployer) {
    return deployer.namespace(ns).on(cluster).asDeployer().deploy(Fixtures.context(),
        Optional.of(Fixtures.image()), ProgressListener.NONE);
  }

  private List<String> creates() {
    return K8S.requests().stream().filter(r -> r.verb().equals("create"))
        .map(AuditLog.Request::line).toList();
  }

  @Test
  void submitChecksTheRuntimeThenCreatesTheTrainJobStrictly() {
    TrainingJob job = submit(Deployers.trainJob("mnist").numNodes(2)
        .mutate(Mutators.pvc("data", "/data")));

    assertThat(job.kind()).isEqualTo("TrainJob");
    assertThat(job.toString()).isEqualTo("TrainJob " + ns + "/mnist");
    Map<String, Object> stored = trainer.trainJob("mnist");
    assertThat(Fixtures.<Object>at(stored, "spec", "runtimePatches", 0, "manager"))
        .isEqualTo("fairing4j.dev/deployer");
    assertThat(Fixtures.<Object>at(stored, "spec", "managedBy"))
        .as("the server's default").isEqualTo("trainer.kubeflow.org/trainjob-controller");
    assertThat(K8S.requestLines()).contains(
        "get /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed",
        "create /apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns
            + "/trainjobs?fieldValidation=Strict");

    // The Trainer's shape is read once per connection.
    long openApiReads = K8S.requestLines().stream().filter(l -> l.contains("/openapi/v3"))
        .count();
    submit(Deployers.trainJob("mnist-2"));
    assertThat(K8S.requestLines().stream().filter(l -> l.contains("/openapi/v3")).count())
        .isEqualTo(openApiReads);
  }

  @Test
  void aMissingRuntimeFailsBeforeAnythingIsCreatedAndNamesTheRuntimesThereAre() {
    assertThatThrownBy(() -> submit(Deployers.trainJob("mnist").runtime("torch-distrbuted")))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.NOT_FOUND);
          assertThat(e.getMessage()).contains(
              "ClusterTrainingRuntime 'torch-distrbuted' does not exist",
              "ClusterTrainingRuntimes ", "torch-distributed",
              "pick one with .runtime(\"");
        });
    assertThatThrownBy(() -> submit(Deployers.trainJob("mnist").namespacedRuntime("mine")))
        .isInstanceOf(KubernetesApiException.class)
        .hasMessageContaining("TrainingRuntime 'mine' does not exist")
        .hasMessageContaining("no TrainingRuntimes in namespace " + ns);
    assertThat(creates()).isEmpty();
  }

  @Test
  void theRuntimeMustHaveTheInitializerJobTheTrainJobNames() {
    assertThatThrownBy(() -> submit(Deployers.trainJob("mnist")
        .datasetInitializer("hf://zalando-datasets/fashion_mnist")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("runtime torch-distributed has no dataset-initializer job");
    assertThat(creates()).isEmpty();
  }

  @Test
  void statusFollowsConditionsJobsStatusAndTheNodePods() {
    TrainingJob job = submit(Deployers.trainJob("mnist").numNodes(2));
    assertThat(job.status().phase()).isEqualTo(JobPhase.PENDING);

    trainer.jobSetAndJob("mnist", 2);
    trainer.pod("mnist", 1, 0, null, "{\"phase\":\"Running\"}");
    trainer.pod("mnist", 0, 0, null, "{\"phase\":\"Running\"}");
    trainer.status("mnist", "{\"jobsStatus\":" + PlayedTrainer.nodeJob(1, 1, 0, 0) + "}");
    JobStatus running = job.status();

    assertThat(running.phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(running.pods()).extracting(PodInfo::name, PodInfo::replicaType, PodInfo::index)
        .containsExactly(tuple("mnist-node-0-0-x7k2p", "node", 0),
            tuple("mnist-node-0-1-x7k2p", "node", 1));
    assertThat(PodDiagnosisShortNames.of(running)).containsExactly("node-0", "node-1");
    assertThat(running.replicaStatuses()).containsOnlyKeys("node");
    assertThat(running.toTable()).contains("mnist  TrainJob  Running",
        "Running    True    TrainerRunning");

    trainer.status("mnist", "{\"conditions\":[" + PlayedTrainer.condition("Complete", "True",
        "AllJobsCompleted", "jobset completed successfully") + "],\"jobsStatus\":"
        + PlayedTrainer.nodeJob(0, 0, 1, 0) + "}");

    JobStatus end = job.waitForCompletion(Duration.ofSeconds(30));
    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.completionTime()).contains(Instant.parse("2026-11-24T12:00:00Z"));
  }

  @Test
  void aFailedTrainJobIsExplainedByTheNodesExitCodeAndTheEventsOfItsJobSetAndJob() {
    TrainingJob job = submit(Deployers.trainJob("bad").numNodes(2));
    trainer.jobSetAndJob("bad", 2);
    trainer.pod("bad", 0, 0, "node-a", "{\"phase\":\"Running\"}");
    trainer.pod("bad", 1, 0, "node-a", """
        {"phase":"Failed","containerStatuses":[{"name":"node","ready":false,"restartCount":0,
          "image":"img","imageID":"","state":{"terminated":{"exitCode":3,"reason":"Error"}}}]}""");
    Instant now = Instant.now();
    trainer.node().warning("BackoffLimitExceeded", "Job", "bad-node-0",
        "Job has reached the specified backoff limit", now);
    trainer.node().event("Warning", "FailedJobs", "JobSet", "bad",
        "jobset failed due to one or more job failures", now, 1);
    CompletableFuture<JobStatus> wait = CompletableFuture.supplyAsync(() ->
        job.waitForCompletion(Duration.ofSeconds(60)));

    trainer.status("bad", "{\"conditions\":[" + PlayedTrainer.condition("Failed", "True",
        "FailedJobs", "jobset failed due to one or more job failures (first failed job:"
            + " bad-node-0)") + "]}");

    assertThatThrownBy(wait::join).hasCauseInstanceOf(JobFailedException.class)
        .cause().isInstanceOfSatisfying(JobFailedException.class, e -> {
          assertThat(e.failedReplica()).contains("node-1");
          assertThat(e.exitCode()).contains(3);
          assertThat(e.getMessage()).contains("replica node-1 exited with code 3",
              "first failed job: bad-node-0");
          assertThat(e.warnings()).anySatisfy(w -> assertThat(w).startsWith(
              "BackoffLimitExceeded job/bad-node-0")).anySatisfy(w -> assertThat(w)
              .startsWith("FailedJobs jobset/bad"));
          assertThat(e.status().phase()).isEqualTo(JobPhase.FAILED);
        });
  }

  @Test
  void aJobKueueHoldsIsQueuedAndSuspendPatchesSpecSuspend() {
    KubernetesTrainingJob job = (KubernetesTrainingJob) submit(Deployers.trainJob("waits")
        .kueueQueue("team-queue").suspend(true));
    trainer.status("waits", "{\"conditions\":[" + PlayedTrainer.condition("Suspended", "True",
        "Suspended", "TrainJob is suspended") + "]}");

    JobStatus status = job.status();
    assertThat(status.phase()).isEqualTo(JobPhase.QUEUED);
    assertThat(status.decidingCondition()).hasValueSatisfying(c -> assertThat(c.message())
        .contains("Kueue queue team-queue"));
    assertThat(TrainingClient.connect(cluster).inNamespace(ns).list().jobs())
        .extracting(JobSummary::name, JobSummary::status)
        .contains(tuple("waits", JobPhase.QUEUED));

    job.resume();
    assertThat(Fixtures.<Object>at(trainer.trainJob("waits"), "spec", "suspend"))
        .isEqualTo(false);
    job.suspend();
    assertThat(Fixtures.<Object>at(trainer.trainJob("waits"), "spec", "suspend"))
        .isEqualTo(true);
  }

  @Test
  void whatTheTrainerReportsInTrainerStatusJoinsTheMetrics() {
    TrainingJob job = submit(Deployers.trainJob("reports"));
    assertThat(job.metrics().isEmpty()).isTrue();

    trainer.status("reports", """
        {"trainerStatus":{"progressPercentage":45,"estimatedRemainingSeconds":120,
          "metrics":[{"name":"loss","value":"0.25"},{"name":"eval_accuracy","value":"0.81"},
                     {"name":"stage","value":"warmup"}],
          "lastUpdatedTime":"2026-11-24T12:00:00Z"}}
        """);
    JobMetrics metrics = job.metrics();

    assertThat(metrics.replicas()).containsExactly("trainer");
    assertThat(metrics.latest("trainer", "loss")).contains(0.25);
    assertThat(metrics.latest("eval_accuracy")).contains(0.81);
    assertThat(metrics.series("trainer", "progress")).extracting(MetricPoint::time,
        MetricPoint::value).containsExactly(tuple(Instant.parse("2026-11-24T12:00:00Z"), 45.0));
    assertThat(metrics.names()).as("a value that is no number is no metric")
        .doesNotContain("stage");
    assertThat(metrics.toText()).contains("trainer", "45%", "0.25", "0.81");
  }

  @Test
  void logsAreReadFromTheNodeContainerOfEveryNodePod() {
    TrainingJob job = submit(Deployers.trainJob("logs").numNodes(2));
    trainer.jobSetAndJob("logs", 2);
    trainer.pod("logs", 0, 0, null, "{\"phase\":\"Pending\"}");
    trainer.pod("logs", 1, 0, null, "{\"phase\":\"Pending\"}");

    assertThat(job.logs().snapshot()).isEmpty(); // no node serves them
    assertThat(job.logs().replica("node-1").snapshot()).isEmpty();

    assertThat(K8S.requests()).filteredOn(r -> r.path().endsWith("/log"))
        .extracting(AuditLog.Request::uri).containsExactly(
            "/api/v1/namespaces/" + ns + "/pods/logs-node-0-0-x7k2p/log?container=node"
                + "&timestamps=true",
            "/api/v1/namespaces/" + ns + "/pods/logs-node-0-1-x7k2p/log?container=node"
                + "&timestamps=true",
            "/api/v1/namespaces/" + ns + "/pods/logs-node-0-1-x7k2p/log?container=node"
                + "&timestamps=true");
  }

  @Test
  void deletingTheTrainJobTakesItsJobSetJobsAndPods() {
    TrainingJob job = submit(Deployers.trainJob("gone"));
    trainer.jobSetAndJob("gone", 1);
    trainer.pod("gone", 0, 0, null, "{\"phase\":\"Running\"}");

    job.delete();

    assertThat(trainer.node().get(trainer.trainJobs() + "/gone")).isEmpty();
    assertThat(trainer.node().get(trainer.jobSets() + "/gone")).isEmpty();
    assertThat(trainer.node().get(trainer.node().batchJobs() + "/gone-node-0")).isEmpty();
    assertThat(trainer.node().get(trainer.node().pods() + "/gone-node-0-0-x7k2p")).isEmpty();
  }

  @Test
  void trainingClientListsGetsAttachesTopsAndDeletesTrainJobs() {
    submit(Deployers.trainJob("llm").numNodes(2).mutate(Mutators.gpus(2)));
    trainer.jobSetAndJob("llm", 2);
    trainer.pod("llm", 0, 2, "gpu-node", "{\"phase\":\"Running\"}");
    trainer.pod("llm", 1, 2, null, "{\"phase\":\"Pending\"}");
    TrainingClient client = TrainingClient.connect(cluster).inNamespace(ns);

    // The JobSet's Job is the TrainJob's, not a job of its own.
    assertThat(client.list().jobs()).extracting(JobSummary::name, JobSummary::trainer,
        JobSummary::status, JobSummary::node).containsExactly(
            tuple("llm", "TrainJob", JobPhase.PENDING, Optional.of("gpu-node")));
    assertThat(client.list().toString()).contains("llm   Pending  TrainJob");
    JobDetails details = client.get("llm");
    assertThat(details.instances()).extracting(PodInfo::name)
        .containsExactly("llm-node-0-0-x7k2p", "llm-node-0-1-x7k2p");
    assertThat(details.toString()).contains("Trainer: TrainJob");
    assertThat(client.topJobs().jobs()).extracting(JobGpus::name, JobGpus::trainer,
        JobGpus::requested, JobGpus::allocated).containsExactly(tuple("llm", "TrainJob", 4, 2));
    TrainingJob attached = client.attach("llm");
    assertThat(attached.kind()).isEqualTo("TrainJob");
    assertThat(attached.status().pods()).hasSize(2);

    // A pod bound to a node is removed only when its kubelet confirms; there is none: end them.
    trainer.node().podStatus("llm-node-0-0-x7k2p", "{\"phase\":\"Succeeded\"}");
    client.delete("llm");

    assertThat(client.list().jobs()).isEmpty();
    assertThatThrownBy(() -> client.attach("llm")).hasMessageContaining(
        "no PyTorchJob, TFJob, XGBoostJob, TrainJob or fairing4j batch Job named 'llm'");
  }

  /** The log prefixes of a status's pods. */
  private static final class PodDiagnosisShortNames {
    static List<String> of(JobStatus status) {
      return status.pods().stream().map(
          dev.fairing4j.deployer.kubernetes.internal.jobs.PodDiagnosis::shortName).toList();
    }
  }
}

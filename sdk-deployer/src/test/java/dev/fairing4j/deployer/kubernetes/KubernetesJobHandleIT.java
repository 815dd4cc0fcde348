package dev.fairing4j.deployer.kubernetes;

import static dev.fairing4j.deployer.kubernetes.PlayedOperator.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ReplicaStatus;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.LastLines;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job handle against a real API server, the test playing the operator and the node
 * ({@link PlayedOperator}): the phase by the operator's precedence rule, pods with where they
 * run and why they do not, batch Job conditions, waiting (success, failure with the failed
 * replica, its exit code and the Warning events, timeout) and deleting with Foreground
 * propagation, which kube-controller-manager's garbage collector carries out.
 *
 * <p>The failed replica's last log lines are not here: a real API server without a node serves
 * no logs (it answers 204), so that part of the failure report stays on the mock in
 * {@link KubernetesJobHandleTest}; the real cluster suite covers logs.
 */
@Timeout(120)
class KubernetesJobHandleIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  private final List<ProgressEvent> events = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
  private PlayedOperator operator;
  private String ns;
  private String jobPath;
  private KubernetesCluster cluster;
  private TrainingJob job;

  @BeforeEach
  void submit() {
    ns = K8S.namespace();
    operator = new PlayedOperator(K8S.server(), ns);
    jobPath = operator.kubeflow("pytorchjobs") + "/mnist";
    cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(TestJobs.FAST);
    job = cluster.submit(TestJobs.pyTorchJob("mnist", ns), BuildContext.empty(),
        SubmitOptions.DEFAULT, events::add);
  }

  @AfterEach
  void stopTimers() {
    later.shutdownNow();
  }

  private void status(String json) {
    operator.jobStatus(jobPath, json);
  }

  @Test
  void phaseFollowsThePrecedenceRuleNotTheLastCondition() {
    assertThat(job.status().phase()).isEqualTo(JobPhase.PENDING);

    status("{\"conditions\":[" + condition("Created", "True", "PyTorchJobCreated", "")
        + "," + condition("Running", "True", "PyTorchJobRunning", "") + "]}");
    assertThat(job.status().phase()).isEqualTo(JobPhase.RUNNING);

    // On success Running stays in the list, False; Succeeded is not necessarily last.
    status("""
        {"conditions":[%s,%s,%s],
         "replicaStatuses":{"Master":{"succeeded":1},"Worker":{"active":1,"failed":0}},
         "startTime":"2024-05-01T12:00:00Z","completionTime":"2024-05-01T12:30:00Z"}
        """.formatted(condition("Created", "True", "PyTorchJobCreated", ""),
        condition("Succeeded", "True", "PyTorchJobSucceeded", "PyTorchJob mnist is successfully"
            + " completed."), condition("Running", "False", "PyTorchJobRunning", "")));
    JobStatus status = job.status();

    assertThat(status.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(status.conditions()).hasSize(3);
    assertThat(status.decidingCondition().orElseThrow().reason())
        .isEqualTo("PyTorchJobSucceeded");
    assertThat(status.replicaStatuses()).containsEntry("Master", new ReplicaStatus(0, 1, 0))
        .containsEntry("Worker", new ReplicaStatus(1, 0, 0));
    assertThat(status.startTime()).contains(Instant.parse("2024-05-01T12:00:00Z"));
    assertThat(status.completionTime()).contains(Instant.parse("2024-05-01T12:30:00Z"));
    assertThat(status.name()).isEqualTo("mnist");
    assertThat(status.kind()).isEqualTo("PyTorchJob");
  }

  @Test
  void podsSayWhereTheyRunAndWhyTheyDoNot() {
    operator.operatorPod("PyTorchJob", "mnist", "master", 0, "pytorch",
        Optional.of("gpu-node-1"), """
        {"phase":"Running","containerStatuses":[{"name":"pytorch","restartCount":2,
          "image":"%s","imageID":"","ready":true,"state":{"running":{}}}]}
        """.formatted(TestJobs.IMAGE));
    operator.pyTorchPod("mnist", "worker", 0, """
        {"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
          "reason":"Unschedulable",
          "message":"0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}]}
        """);
    operator.pyTorchPod("mnist", "worker", 1, """
        {"phase":"Pending","containerStatuses":[{"name":"pytorch","restartCount":0,
          "image":"%1$s","imageID":"","ready":false,
          "state":{"waiting":{"reason":"ImagePullBackOff",
            "message":"Back-off pulling image \\"%1$s\\""}}}]}
        """.formatted(TestJobs.IMAGE));
    // A TFJob of the same name: its pod carries the same job-name label but is not this job's.
    operator.tfJob("mnist");
    operator.operatorPod("TFJob", "mnist", "chief", 0, "tensorflow", Optional.empty(),
        "{\"phase\":\"Running\"}");

    List<PodInfo> pods = job.status().pods();

    assertThat(pods).extracting(PodInfo::name)
        .containsExactly("mnist-master-0", "mnist-worker-0", "mnist-worker-1");
    PodInfo master = pods.get(0);
    assertThat(master.replicaType()).isEqualTo("Master");
    assertThat(master.index()).isZero();
    assertThat(master.phase()).isEqualTo("Running");
    assertThat(master.node()).contains("gpu-node-1");
    assertThat(master.restarts()).isEqualTo(2);
    assertThat(master.reason()).isEmpty();

    PodInfo unschedulable = pods.get(1);
    assertThat(unschedulable.replicaType()).isEqualTo("Worker");
    assertThat(unschedulable.phase()).isEqualTo("Pending");
    assertThat(unschedulable.node()).isEmpty();
    assertThat(unschedulable.reason()).contains("Unschedulable");
    assertThat(unschedulable.message()).contains(
        "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");

    PodInfo pullBackOff = pods.get(2);
    assertThat(pullBackOff.index()).isEqualTo(1);
    assertThat(pullBackOff.reason()).contains("ImagePullBackOff");
    assertThat(pullBackOff.message().orElseThrow()).contains(TestJobs.IMAGE);
    assertThat(pullBackOff.toString()).isEqualTo("mnist-worker-1 Pending (ImagePullBackOff)");
  }

  @Test
  void podsOfOperatorsBefore16AreFoundByTheirOldLabels() {
    operator.pod("""
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"mnist-worker-3","labels":{
          "group-name":"kubeflow.org","job-name":"mnist","pytorch-replica-type":"worker",
          "pytorch-replica-index":"3"}},
         "spec":{"containers":[{"name":"pytorch","image":"x"}]}}
        """, "{\"phase\":\"Running\"}");

    assertThat(job.status().pods()).singleElement().satisfies(p -> {
      assertThat(p.replicaType()).isEqualTo("Worker");
      assertThat(p.index()).isEqualTo(3);
    });
  }

  /** A batch Job the test runs instead of the Job controller (spec.managedBy). */
  private TrainingJob batchJob(String name) {
    return cluster.submit(new RenderedJob("Job", name, ns, List.of(Map.of(
            "apiVersion", "batch/v1", "kind", "Job", "metadata", Map.of("name", name),
            "spec", Map.of("managedBy", PlayedOperator.MANAGED_BY,
                "template", Map.of("spec", Map.of("restartPolicy", "Never",
                    "containers", List.of(Map.of("name", "main", "image", "python:3.11")))))))),
        BuildContext.empty(), SubmitOptions.DEFAULT, e -> { });
  }

  @Test
  void batchJobConditionsMapOntoTheSamePhases() {
    TrainingJob batch = batchJob("prep");
    String path = operator.batchJobs() + "/prep";

    assertThat(batch.status().phase()).isEqualTo(JobPhase.CREATED);
    operator.jobStatus(path, "{\"active\":1,\"startTime\":\"2024-05-01T12:00:00Z\"}");
    operator.pod("""
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"prep-x7k2q","labels":{
          "job-name":"prep","batch.kubernetes.io/job-name":"prep"},
          "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"prep","uid":"%s",
            "controller":true,"blockOwnerDeletion":true}]},
         "spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"python:3.11"}]}}
        """.formatted(operator.uid(operator.batchJobs(), "prep")), "{\"phase\":\"Running\"}");
    JobStatus running = batch.status();
    assertThat(running.phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(running.pods()).singleElement().satisfies(p -> {
      assertThat(p.replicaType()).isEqualTo("Worker");
      assertThat(p.index()).isZero();
    });
    assertThat(running.replicaStatuses()).containsEntry("Worker", new ReplicaStatus(1, 0, 0));

    // What the Job controller writes on success: the API server insists on all of it.
    operator.jobStatus(path, "{\"active\":0,\"succeeded\":1,"
        + "\"completionTime\":\"2024-05-01T12:30:00Z\",\"conditions\":["
        + condition("SuccessCriteriaMet", "True", "CompletionsReached", "") + ","
        + condition("Complete", "True", "CompletionsReached", "") + "]}");
    assertThat(batch.status().phase()).isEqualTo(JobPhase.SUCCEEDED);

    // A finished Job never changes its terminal condition, so each phase is a Job of its own.
    TrainingJob failed = batchJob("prep-failed");
    operator.jobStatus(operator.batchJobs() + "/prep-failed", "{\"startTime\":"
        + "\"2024-05-01T12:00:00Z\",\"failed\":1,\"conditions\":["
        + condition("FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the"
            + " specified backoff limit") + ","
        + condition("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified"
            + " backoff limit") + "]}");
    assertThat(failed.status().phase()).isEqualTo(JobPhase.FAILED);

    TrainingJob suspended = batchJob("prep-suspended");
    operator.mergePatch(operator.batchJobs() + "/prep-suspended",
        "{\"spec\":{\"suspend\":true}}");
    operator.jobStatus(operator.batchJobs() + "/prep-suspended", "{\"conditions\":["
        + condition("Suspended", "True", "JobSuspended", "Job suspended") + "]}");
    assertThat(suspended.status().phase()).isEqualTo(JobPhase.SUSPENDED);
  }

  @Test
  void waitReturnsOnSuccessAndReportsPhaseChanges() {
    status("{\"conditions\":[" + condition("Running", "True", "PyTorchJobRunning", "") + "]}");
    // The operator finishes the job once the wait has seen it run.
    later.execute(() -> {
      PlayedOperator.await("the wait saw Running", () -> events.stream()
          .anyMatch(e -> e instanceof ProgressEvent.PhaseChanged p
              && p.current() == JobPhase.RUNNING));
      status("{\"conditions\":[" + condition("Running", "False", "PyTorchJobRunning", "") + ","
          + condition("Succeeded", "True", "PyTorchJobSucceeded", "done") + "]}");
    });

    JobStatus end = job.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(events).filteredOn(ProgressEvent.PhaseChanged.class::isInstance)
        .map(e -> ((ProgressEvent.PhaseChanged) e).current())
        .containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
  }

  @Test
  void waitThrowsOnFailureWithReplicaExitCodeAndEvents() {
    operator.pyTorchPod("mnist", "master", 0, """
        {"phase":"Failed","containerStatuses":[{"name":"pytorch","restartCount":0,
          "image":"%s","imageID":"","ready":false,
          "state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}
        """.formatted(TestJobs.IMAGE));
    operator.pyTorchPod("mnist", "worker", 0, "{\"phase\":\"Running\"}");
    operator.warning("ExitedWithCode", "PyTorchJob", "mnist",
        "Pod: " + ns + ".mnist-master-0 exited with code 1",
        Instant.parse("2024-05-01T12:05:00Z"));
    operator.event("Warning", "BackOff", "Pod", "mnist-master-0",
        "Back-off restarting failed container", Instant.parse("2024-05-01T12:04:00Z"), 3);
    operator.event("Normal", "Pulled", "Pod", "mnist-master-0", "image pulled",
        Instant.parse("2024-05-01T12:03:00Z"), 1);
    operator.warning("FailedMount", "Pod", "other-master-0", "other job",
        Instant.parse("2024-05-01T12:03:00Z"));
    status("{\"conditions\":[" + condition("Failed", "True", "PyTorchJobFailed",
        "PyTorchJob mnist is failed because 1 Master replica(s) failed.") + "]}");

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofSeconds(30)))
        .isInstanceOfSatisfying(JobFailedException.class, e -> {
          assertThat(e.failedReplica()).contains("master-0");
          assertThat(e.exitCode()).contains(1);
          assertThat(e.status().phase()).isEqualTo(JobPhase.FAILED);
          assertThat(e.getMessage()).contains("replica master-0 exited with code 1")
              .contains("PyTorchJob mnist is failed because 1 Master replica(s) failed.");
          // No node, no log: the server answers the read with 204 and the report goes on.
          assertThat(e.lastLines()).isEmpty();
          assertThat(e.warnings()).containsExactly(
              "BackOff pod/mnist-master-0: Back-off restarting failed container (x3)",
              "ExitedWithCode pytorchjob/mnist: Pod: " + ns
                  + ".mnist-master-0 exited with code 1");
        });
    assertThat(K8S.requestLines()).contains("get " + operator.pods()
        + "/mnist-master-0/log?container=pytorch&tailLines=" + LastLines.READ);
  }

  @Test
  void waitGivesUpAfterTheTimeoutAndSaysWhereTheJobStood() {
    status("{\"conditions\":[" + condition("Running", "True", "PyTorchJobRunning", "") + "]}");

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMillis(150)))
        .isInstanceOfSatisfying(JobTimeoutException.class, e -> {
          assertThat(e.lastStatus().phase()).isEqualTo(JobPhase.RUNNING);
          assertThat(e.timeout()).isEqualTo(Duration.ofMillis(150));
          assertThat(e.getMessage()).contains("still Running after 150 ms");
        });
    assertThat(operator.get(jobPath)).isPresent();
  }

  @Test
  void deleteUsesForegroundPropagationAndReturnsWhenTheJobIsGone() throws Exception {
    // A dependent that cannot go at once: with Foreground propagation the job waits for it.
    operator.pyTorchPod("mnist", "master", 0, "{\"phase\":\"Running\"}");
    operator.mergePatch(operator.pods() + "/mnist-master-0",
        "{\"metadata\":{\"finalizers\":[\"fairing4j.dev/hold\"]}}");
    AuditLog.Mark before = K8S.server().audit().mark();

    CompletableFuture<Void> deletion = CompletableFuture.runAsync(job::delete,
        task -> new Thread(task, "delete-mnist").start());

    PlayedOperator.await("the job is held by foregroundDeletion", () -> operator.get(jobPath)
        .map(o -> JsonTree.at(o, "metadata", "finalizers").map(String::valueOf).orElse("")
            .contains("foregroundDeletion")).orElse(false));
    PlayedOperator.await("the garbage collector deletes the dependent pod first", () ->
        operator.get(operator.pods() + "/mnist-master-0")
            .flatMap(p -> JsonTree.text(p, "metadata", "deletionTimestamp")).isPresent());
    assertThat(deletion).isNotDone();
    operator.mergePatch(operator.pods() + "/mnist-master-0",
        "{\"metadata\":{\"finalizers\":null}}");
    deletion.get(60, TimeUnit.SECONDS);

    assertThat(operator.get(jobPath)).isEmpty();
    assertThat(operator.get("/api/v1/namespaces/" + ns + "/services/mnist-headless")).isEmpty();
    List<AuditLog.Request> requests = K8S.server().audit().since(before, User.SDK);
    assertThat(requests).first().extracting(AuditLog.Request::line)
        .isEqualTo("delete " + jobPath);
    List<AuditLog.Request> reads = requests.stream()
        .filter(r -> r.line().equals("get " + jobPath)).toList();
    assertThat(reads).hasSizeGreaterThanOrEqualTo(2); // held, then gone
    assertThat(reads).last().extracting(AuditLog.Request::status).isEqualTo(404);

    job.delete(); // already gone: nothing to do
    assertThatThrownBy(job::status).isInstanceOfSatisfying(KubernetesApiException.class, e -> {
      assertThat(e.problem()).isEqualTo(Problem.NOT_FOUND);
      assertThat(e.getMessage()).contains("PyTorchJob mnist does not exist in namespace " + ns);
    });
  }

  @Test
  void aDeletionThatHangsIsReportedWithItsFinalizers() {
    operator.mergePatch(jobPath, "{\"metadata\":{\"finalizers\":[\"example.com/stuck\"]}}");
    TrainingJob impatient = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(new Timings(Duration.ofMillis(20), Duration.ofMillis(20),
            Duration.ofMillis(200)))
        .attach("kubeflow.org/v1", "PyTorchJob", "mnist", ns);

    try {
      assertThatThrownBy(impatient::delete).isInstanceOfSatisfying(FairingException.class,
          e -> {
            assertThat(e.getMessage()).contains("still terminating after 200 ms")
                .contains("example.com/stuck");
            assertThat(e.hint().orElseThrow())
                .contains("kubectl get pytorchjob mnist -n " + ns + " -o yaml");
          });
    } finally {
      operator.mergePatch(jobPath, "{\"metadata\":{\"finalizers\":null}}");
    }
  }

  @Test
  void aHandleReadsNothingUntilUsed() {
    AuditLog.Mark before = K8S.server().audit().mark();
    TrainingJob attached = cluster.attach("kubeflow.org/v1", "PyTorchJob", "mnist", ns);
    assertThat(attached.logs().tail(5).replica("worker")).isNotNull();
    assertThat(K8S.server().audit().since(before, User.SDK)).isEmpty();
    assertThat(attached.status().pods()).isEmpty();
    assertThat(Optional.of(attached.name())).contains("mnist");
  }
}

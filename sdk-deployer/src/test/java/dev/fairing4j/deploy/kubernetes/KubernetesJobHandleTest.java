package dev.fairing4j.deploy.kubernetes;

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
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.internal.RenderedJob;
import dev.fairing4j.deploy.internal.SubmitOptions;
import dev.fairing4j.deploy.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deploy.kubernetes.internal.Timings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The job handle: status, pods and their diagnosis, waiting, deleting. */
class KubernetesJobHandleTest {
  private static final String NS = "team";
  private static final String JOB = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs/mnist";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";

  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  private final MockObjects mock = new MockObjects(K8S);
  private final List<ProgressEvent> events = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
  private KubernetesCluster cluster;
  private TrainingJob job;

  @BeforeEach
  void submit() {
    cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(TestJobs.FAST);
    job = cluster.submit(TestJobs.pyTorchJob("mnist", NS), BuildContext.empty(),
        SubmitOptions.DEFAULT, events::add);
  }

  @AfterEach
  void stopTimers() {
    later.shutdownNow();
  }

  /** Replaces the job's conditions (the mock appends lists on merge patches, so clear first). */
  private void status(String json) {
    setStatus(JOB, json);
  }

  private void setStatus(String path, String json) {
    // One request, so a poll never sees a half-written status (a merge patch would append to
    // the conditions list on this mock, and clearing first opens a window).
    mock.jsonPatch(path + "/status", "[{\"op\":\"add\",\"path\":\"/status\",\"value\":"
        + json + "}]");
  }

  static String condition(String type, String status, String reason, String message) {
    return "{\"type\":\"" + type + "\",\"status\":\"" + status + "\",\"reason\":\"" + reason
        + "\",\"message\":\"" + message + "\",\"lastTransitionTime\":\"2024-05-01T12:00:00Z\"}";
  }

  /** A pod the way the operator labels it, with {@code status} as the kubelet reports it. */
  static String operatorPod(String job, String type, int index, String status) {
    return """
        {"apiVersion":"v1","kind":"Pod",
         "metadata":{"name":"%1$s-%2$s-%3$d","labels":{
           "training.kubeflow.org/job-name":"%1$s",
           "training.kubeflow.org/replica-type":"%2$s",
           "training.kubeflow.org/replica-index":"%3$d",
           "training.kubeflow.org/operator-name":"pytorchjob-controller"},
           "ownerReferences":[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","name":"%1$s",
             "uid":"u","controller":true}]},
         "spec":{"containers":[{"name":"pytorch","image":"%4$s"}]},
         "status":%5$s}
        """.formatted(job, type, index, TestJobs.IMAGE, status);
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
    mock.post(PODS, operatorPod("mnist", "master", 0, """
        {"phase":"Running","containerStatuses":[{"name":"pytorch","restartCount":2,
          "state":{"running":{}}}]}
        """).replace("\"spec\":{", "\"spec\":{\"nodeName\":\"gpu-node-1\","));
    mock.post(PODS, operatorPod("mnist", "worker", 0, """
        {"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
          "reason":"Unschedulable",
          "message":"0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}]}
        """));
    mock.post(PODS, operatorPod("mnist", "worker", 1, """
        {"phase":"Pending","containerStatuses":[{"name":"pytorch","restartCount":0,
          "state":{"waiting":{"reason":"ImagePullBackOff",
            "message":"Back-off pulling image \\"%s\\""}}}]}
        """.formatted(TestJobs.IMAGE)));
    // Another kind's pod with the same job name is not this job's.
    mock.post(PODS, operatorPod("mnist", "chief", 0, "{\"phase\":\"Running\"}")
        .replace("\"kind\":\"PyTorchJob\"", "\"kind\":\"TFJob\""));

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
    mock.post(PODS, """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"mnist-worker-3","labels":{
          "group-name":"kubeflow.org","job-name":"mnist","pytorch-replica-type":"worker",
          "pytorch-replica-index":"3"}},
         "spec":{"containers":[{"name":"pytorch","image":"x"}]},"status":{"phase":"Running"}}
        """);

    assertThat(job.status().pods()).singleElement().satisfies(p -> {
      assertThat(p.replicaType()).isEqualTo("Worker");
      assertThat(p.index()).isEqualTo(3);
    });
  }

  @Test
  void batchJobConditionsMapOntoTheSamePhases() {
    TrainingJob batch = cluster.submit(new RenderedJob("Job",
        "prep", NS, List.of(Map.of("apiVersion", "batch/v1", "kind", "Job",
            "metadata", Map.of("name", "prep"),
            "spec", Map.of("template", Map.of("spec", Map.of(
                "restartPolicy", "Never", "containers", List.of(Map.of("name",
                    "main", "image", "python:3.11")))))))),
        BuildContext.empty(), SubmitOptions.DEFAULT, e -> { });
    String path = "/apis/batch/v1/namespaces/" + NS + "/jobs/prep";

    assertThat(batch.status().phase()).isEqualTo(JobPhase.CREATED);
    setStatus(path, "{\"active\":1}");
    mock.post(PODS, """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"prep-x7k2q","labels":{
          "job-name":"prep","batch.kubernetes.io/job-name":"prep"}},
         "spec":{"containers":[{"name":"main","image":"python:3.11"}]},
         "status":{"phase":"Running"}}
        """);
    JobStatus running = batch.status();
    assertThat(running.phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(running.pods()).singleElement().satisfies(p -> {
      assertThat(p.replicaType()).isEqualTo("Worker");
      assertThat(p.index()).isZero();
    });
    assertThat(running.replicaStatuses()).containsEntry("Worker", new ReplicaStatus(1, 0, 0));

    setStatus(path, "{\"active\":0,\"succeeded\":1,\"conditions\":["
        + condition("Complete", "True", "", "") + "]}");
    assertThat(batch.status().phase()).isEqualTo(JobPhase.SUCCEEDED);
    setStatus(path, "{\"conditions\":["
        + condition("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified"
            + " backoff limit") + "]}");
    assertThat(batch.status().phase()).isEqualTo(JobPhase.FAILED);
    setStatus(path, "{\"conditions\":["
        + condition("Suspended", "True", "JobSuspended", "") + "]}");
    assertThat(batch.status().phase()).isEqualTo(JobPhase.SUSPENDED);
  }

  @Test
  void waitReturnsOnSuccessAndReportsPhaseChanges() {
    status("{\"conditions\":[" + condition("Running", "True", "PyTorchJobRunning", "") + "]}");
    // One patch (the mock appends the conditions): clearing first would show a reader a
    // Pending job in between.
    later.schedule(() -> mock.mergePatch(JOB + "/status", "{\"status\":{\"conditions\":["
        + condition("Running", "False", "PyTorchJobRunning", "") + ","
        + condition("Succeeded", "True", "PyTorchJobSucceeded", "done") + "]}}"),
        200, TimeUnit.MILLISECONDS);

    JobStatus end = job.waitForCompletion(Duration.ofSeconds(10));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(events).filteredOn(ProgressEvent.PhaseChanged.class::isInstance)
        .map(e -> ((ProgressEvent.PhaseChanged) e).current())
        .containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
  }

  @Test
  void waitThrowsOnFailureWithReplicaExitCodeLogAndEvents() {
    mock.post(PODS, operatorPod("mnist", "master", 0, """
        {"phase":"Failed","containerStatuses":[{"name":"pytorch","restartCount":0,
          "state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}
        """));
    mock.post(PODS, operatorPod("mnist", "worker", 0, "{\"phase\":\"Running\"}"));
    K8S.server().expect().get()
        .withPath(PODS + "/mnist-master-0/log?container=pytorch&tailLines=20")
        .andReturn(200, "Epoch 1 loss 0.9\nTraceback (most recent call last):\n"
            + "RuntimeError: CUDA out of memory\n")
        .always();
    mock.post("/api/v1/namespaces/" + NS + "/events", """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},"type":"Warning",
         "reason":"ExitedWithCode","message":"Pod: team.mnist-master-0 exited with code 1",
         "involvedObject":{"kind":"PyTorchJob","name":"mnist"},
         "lastTimestamp":"2024-05-01T12:05:00Z"}
        """);
    mock.post("/api/v1/namespaces/" + NS + "/events", """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"e2"},"type":"Warning",
         "reason":"BackOff","message":"Back-off restarting failed container","count":3,
         "involvedObject":{"kind":"Pod","name":"mnist-master-0"},
         "lastTimestamp":"2024-05-01T12:04:00Z"}
        """);
    mock.post("/api/v1/namespaces/" + NS + "/events", """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"e3"},"type":"Normal",
         "reason":"Pulled","message":"image pulled",
         "involvedObject":{"kind":"Pod","name":"mnist-master-0"}}
        """);
    mock.post("/api/v1/namespaces/" + NS + "/events", """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"e4"},"type":"Warning",
         "reason":"FailedMount","message":"other job","involvedObject":{"kind":"Pod",
         "name":"other-master-0"}}
        """);
    status("{\"conditions\":[" + condition("Failed", "True", "PyTorchJobFailed",
        "PyTorchJob mnist is failed because 1 Master replica(s) failed.") + "]}");

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(JobFailedException.class, e -> {
          assertThat(e.failedReplica()).contains("master-0");
          assertThat(e.exitCode()).contains(1);
          assertThat(e.status().phase()).isEqualTo(JobPhase.FAILED);
          assertThat(e.getMessage()).contains("replica master-0 exited with code 1")
              .contains("PyTorchJob mnist is failed because 1 Master replica(s) failed.")
              .contains("RuntimeError: CUDA out of memory");
          assertThat(e.lastLines()).containsExactly("Epoch 1 loss 0.9",
              "Traceback (most recent call last):", "RuntimeError: CUDA out of memory");
          assertThat(e.warnings()).containsExactly(
              "BackOff pod/mnist-master-0: Back-off restarting failed container (x3)",
              "ExitedWithCode pytorchjob/mnist: Pod: team.mnist-master-0 exited with code 1");
        });
  }

  @Test
  void waitGivesUpAfterTheTimeoutAndSaysWhereTheJobStood() {
    status("{\"conditions\":[" + condition("Running", "True", "PyTorchJobRunning", "") + "]}");

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMillis(150)))
        .isInstanceOfSatisfying(JobTimeoutException.class, e -> {
          assertThat(e.lastStatus().phase()).isEqualTo(JobPhase.RUNNING);
          assertThat(e.timeout()).isEqualTo(Duration.ofMillis(150));
          assertThat(e.getMessage()).contains("still Running after PT0.15S");
        });
  }

  @Test
  void deleteUsesForegroundPropagationAndReturnsWhenTheJobIsGone() throws Exception {
    // The API server keeps a foreground-deleted job (with a deletionTimestamp) until its
    // dependents are gone: the first two reads after the delete still find it.
    K8S.server().expect().get().withPath(JOB)
        .andReturn(200, "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\","
            + "\"metadata\":{\"name\":\"mnist\",\"namespace\":\"team\","
            + "\"deletionTimestamp\":\"2024-05-01T12:00:00Z\","
            + "\"finalizers\":[\"foregroundDeletion\"]}}")
        .times(2);
    int before = K8S.requestCount();

    job.delete();

    List<String> lines = K8S.requestLines().subList(before, K8S.requestCount());
    assertThat(lines).first().isEqualTo("DELETE " + JOB);
    assertThat(lines).filteredOn(l -> l.equals("GET " + JOB)).hasSize(3);
    assertThat(K8S.requests().get(before).getBody().readUtf8())
        .contains("\"propagationPolicy\":\"Foreground\"");
    assertThat(mock.get(JOB)).isEmpty();

    job.delete(); // already gone: nothing to do
    assertThatThrownBy(job::status).isInstanceOfSatisfying(KubernetesApiException.class, e -> {
      assertThat(e.problem()).isEqualTo(Problem.NOT_FOUND);
      assertThat(e.getMessage()).contains("PyTorchJob mnist does not exist in namespace team");
    });
  }

  @Test
  void aDeletionThatHangsIsReportedWithItsFinalizers() {
    K8S.server().expect().get().withPath(JOB)
        .andReturn(200, "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\","
            + "\"metadata\":{\"name\":\"mnist\",\"finalizers\":[\"example.com/stuck\"]}}")
        .always();
    TrainingJob impatient = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(new Timings(Duration.ofMillis(20), Duration.ofMillis(20),
            Duration.ofMillis(200)))
        .attach("kubeflow.org/v1", "PyTorchJob", "mnist", NS);

    assertThatThrownBy(impatient::delete).isInstanceOfSatisfying(FairingException.class, e -> {
      assertThat(e.getMessage()).contains("still terminating after PT0.2S")
          .contains("example.com/stuck");
      assertThat(e.hint().orElseThrow()).contains("kubectl get pytorchjob mnist -n team -o yaml");
    });
  }

  @Test
  void aHandleReadsNothingUntilUsed() {
    int before = K8S.requestCount();
    TrainingJob attached = cluster.attach("kubeflow.org/v1", "PyTorchJob", "mnist", NS);
    assertThat(attached.logs().tail(5).replica("worker")).isNotNull();
    assertThat(K8S.requestCount()).isEqualTo(before);
    assertThat(attached.status().pods()).isEmpty();
    assertThat(Optional.of(attached.name())).contains("mnist");
  }
}

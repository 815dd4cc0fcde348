package dev.fairing4j.deployer.kubernetes;

import static dev.fairing4j.deployer.kubernetes.PlayedOperator.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Why a job's pods do not run, as status() tells it against a real API server, the test playing
 * the scheduler, the kubelet and the operator ({@link PlayedOperator}): the scheduler's message
 * for an Unschedulable pod, the image of one that cannot be pulled, a CrashLoopBackOff whose
 * previous log cannot be read, at most three previous-log reads per status, the Warning events on
 * the job and its pods (and none when RBAC denies listing events), and a timed-out wait that says
 * why a pod does not run.
 *
 * <p>The last lines of a crashed container are not here: a real API server without a node serves
 * no logs, so {@link JobDiagnosisTest} keeps that on the mock; the real cluster suite covers logs.
 */
@Timeout(120)
class JobDiagnosisIT {
  private static final String NO_GPU = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.";
  /** The query client-java builds for a bounded read of the previous container's log. */
  private static final String PREVIOUS_LOG =
      "/log?container=pytorch&limitBytes=16384&previous=true&tailLines=5";

  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared();

  private PlayedOperator operator;
  private String ns;
  private TrainingJob job;

  @BeforeEach
  void submit() {
    ns = K8S.namespace();
    operator = new PlayedOperator(K8S.server(), ns);
    job = Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(TestJobs.FAST)
        .submit(TestJobs.pyTorchJob("mnist", ns), BuildContext.empty(), SubmitOptions.DEFAULT,
            e -> { });
  }

  private void unschedulableWorker() {
    operator.pyTorchPod("mnist", "worker", 0, """
        {"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
          "reason":"Unschedulable","message":"%s"}]}
        """.formatted(NO_GPU));
  }

  private static String crashLoop(int restarts) {
    return """
        {"phase":"Running","containerStatuses":[{"name":"pytorch","restartCount":%d,
          "image":"%s","imageID":"","ready":false,
          "state":{"waiting":{"reason":"CrashLoopBackOff",
            "message":"back-off 40s restarting failed container=pytorch"}},
          "lastState":{"terminated":{"exitCode":1,"reason":"Error"}}}]}
        """.formatted(restarts, TestJobs.IMAGE);
  }

  @Test
  void anUnschedulablePodShowsTheSchedulersMessageInItsInfoAndTheTable() {
    unschedulableWorker();

    JobStatus status = job.status();

    assertThat(status.pods()).singleElement().satisfies(p -> {
      assertThat(p.phase()).isEqualTo("Pending");
      assertThat(p.reason()).contains("Unschedulable");
      assertThat(p.message()).contains(NO_GPU);
    });
    assertThat(status.toTable()).containsPattern(
        "mnist-worker-0 +Pending +- +0 +- +Unschedulable: " + NO_GPU.replace(".", "\\."));
  }

  @Test
  void aPodThatCannotPullItsImageNamesTheImage() {
    // The kubelet's ErrImagePull message does not always name the image; the diagnosis does.
    operator.pyTorchPod("mnist", "master", 0, """
        {"phase":"Pending","containerStatuses":[{"name":"pytorch","restartCount":0,
          "image":"%s","imageID":"","ready":false,
          "state":{"waiting":{"reason":"ErrImagePull","message":"rpc error: code = NotFound"}}}]}
        """.formatted(TestJobs.IMAGE));
    operator.pyTorchPod("mnist", "worker", 0, """
        {"phase":"Pending","containerStatuses":[{"name":"pytorch","restartCount":0,
          "image":"","imageID":"","ready":false,
          "state":{"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image"}}}]}
        """);

    JobStatus status = job.status();

    assertThat(status.pods()).extracting(p -> p.reason().orElseThrow())
        .containsExactly("ErrImagePull", "ImagePullBackOff");
    assertThat(status.pods()).allSatisfy(p ->
        assertThat(p.message().orElseThrow()).contains("(image " + TestJobs.IMAGE + ")"));
    assertThat(status.toTable()).contains("ImagePullBackOff: Back-off pulling image (image "
        + TestJobs.IMAGE + ")");
  }

  @Test
  void aPreviousLogThatCannotBeReadLeavesTheKubeletsMessage() {
    // Scheduled to a node that is gone: the API server cannot reach a kubelet for the log.
    operator.operatorPod("PyTorchJob", "mnist", "master", 0, "pytorch",
        Optional.of("removed-node"), crashLoop(1));

    PodInfo master = job.status().pods().get(0);

    assertThat(master.reason()).contains("CrashLoopBackOff");
    assertThat(master.message()).contains("back-off 40s restarting failed container=pytorch");
    assertThat(master.message().orElseThrow()).doesNotContain("last lines");
    assertThat(K8S.requests()).filteredOn(r -> r.uri().endsWith("/mnist-master-0" + PREVIOUS_LOG))
        .singleElement().satisfies(r -> assertThat(r.status()).isGreaterThanOrEqualTo(400));
  }

  @Test
  void onlyTheFirstFewCrashLoopingPodsHaveTheirLogsRead() {
    IntStream.range(0, 5).forEach(i -> operator.pyTorchPod("mnist", "worker", i, crashLoop(2)));
    AuditLog.Mark before = K8S.server().audit().mark();

    JobStatus status = job.status();

    assertThat(status.pods()).hasSize(5)
        .allSatisfy(p -> assertThat(p.reason()).contains("CrashLoopBackOff"));
    assertThat(K8S.server().audit().since(before, User.SDK))
        .filteredOn(r -> r.path().endsWith("/log")).hasSize(3);
  }

  @Test
  void warningEventsOnTheJobAndItsPodsAreInTheStatusOldestFirst() {
    unschedulableWorker();
    operator.warning("FailedScheduling", "Pod", "mnist-worker-0", NO_GPU,
        Instant.parse("2024-05-01T12:01:00Z"));
    operator.warning("Unschedulable", "PyTorchJob", "mnist",
        "Pod " + ns + "/mnist-worker-0 is unschedulable", Instant.parse("2024-05-01T12:00:00Z"));
    operator.warning("FailedScheduling", "Pod", "other-worker-0", "not ours",
        Instant.parse("2024-05-01T12:02:00Z"));
    operator.warning("Unschedulable", "PyTorchJob", "other", "not ours either",
        Instant.parse("2024-05-01T12:02:00Z"));
    operator.event("Normal", "Scheduled", "Pod", "mnist-worker-0", "normal, not a warning",
        Instant.parse("2024-05-01T12:03:00Z"), 1);

    JobStatus status = job.status();

    assertThat(status.warnings()).containsExactly(
        "Unschedulable pytorchjob/mnist: Pod " + ns + "/mnist-worker-0 is unschedulable",
        "FailedScheduling pod/mnist-worker-0: " + NO_GPU);
    assertThat(status.toTable()).endsWith("""
        EVENTS
        Unschedulable pytorchjob/mnist: Pod %s/mnist-worker-0 is unschedulable
        FailedScheduling pod/mnist-worker-0: %s""".formatted(ns, NO_GPU));
    assertThat(status.toString()).doesNotContain("FailedScheduling");
  }

  @Test
  void aStatusKeepsTheNewestTenWarnings() {
    IntStream.range(0, 12).forEach(i -> operator.warning("BackOff", "PyTorchJob", "mnist",
        "attempt " + i, Instant.parse("2024-05-01T12:%02d:00Z".formatted(i))));

    assertThat(job.status().warnings()).hasSize(10)
        .first().isEqualTo("BackOff pytorchjob/mnist: attempt 2");
    assertThat(job.status().warnings()).last().isEqualTo("BackOff pytorchjob/mnist: attempt 11");
  }

  @Test
  void eventsThatCannotBeListedLeaveTheStatusWithoutWarnings() {
    unschedulableWorker();
    operator.warning("FailedScheduling", "Pod", "mnist-worker-0", NO_GPU,
        Instant.parse("2024-05-01T12:01:00Z"));
    // A user whose Role reads jobs and pods but not events, as a tight namespace admin grants.
    operator.post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"no-events"},
         "rules":[{"apiGroups":["kubeflow.org"],"resources":["pytorchjobs"],"verbs":["get"]},
                  {"apiGroups":[""],"resources":["pods"],"verbs":["list"]}]}
        """);
    operator.post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings", """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
         "metadata":{"name":"no-events"},
         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"no-events"},
         "subjects":[{"kind":"User","name":"%s"}]}
        """.formatted(User.UNPRIVILEGED.username()));
    AuditLog.Mark before = K8S.server().audit().mark();
    TrainingJob restricted = Clusters.kubernetes().kubeconfig(K8S.kubeconfig(User.UNPRIVILEGED))
        .withTimings(TestJobs.FAST).attach("kubeflow.org/v1", "PyTorchJob", "mnist", ns);

    JobStatus status = restricted.status();

    assertThat(status.warnings()).isEmpty();
    assertThat(status.pods()).singleElement()
        .satisfies(p -> assertThat(p.reason()).contains("Unschedulable"));
    assertThat(K8S.server().audit().since(before, User.UNPRIVILEGED))
        .filteredOn(r -> r.path().equals("/api/v1/namespaces/" + ns + "/events"))
        .extracting(AuditLog.Request::status).containsOnly(403);
  }

  @Test
  void warningsOfAnEarlierJobOfTheSameNameAreNotThisJobs() {
    // Seen on a real cluster: events outlive their object by an hour, so a job submitted again
    // under its name (replaceExisting) showed its predecessor's Unschedulable events.
    String uid = operator.uid(operator.kubeflow("pytorchjobs"), "mnist");
    for (String[] event : new String[][] {
        {"old", "Unschedulable", "the earlier run's", "uid-of-the-earlier-run", "12:00"},
        {"new", "BackOff", "this run's", uid, "12:01"}}) {
      operator.post("/api/v1/namespaces/" + ns + "/events", """
          {"apiVersion":"v1","kind":"Event","metadata":{"name":"%s"},"type":"Warning",
           "reason":"%s","message":"%s","involvedObject":{"apiVersion":"kubeflow.org/v1",
           "kind":"PyTorchJob","name":"mnist","namespace":"%s","uid":"%s"},
           "lastTimestamp":"2024-05-01T%s:00Z","firstTimestamp":"2024-05-01T%s:00Z"}
          """.formatted(event[0], event[1], event[2], ns, event[3], event[4], event[4]));
    }

    assertThat(job.status().warnings()).containsExactly("BackOff pytorchjob/mnist: this run's");
  }

  @Test
  void eventsAreTheJobsAndItsPodsNormalAndWarningOldestFirstWithoutAPredecessorsOrAStrangers() {
    unschedulableWorker();
    String jobUid = operator.uid(operator.kubeflow("pytorchjobs"), "mnist");
    String podUid = operator.uid("/api/v1/namespaces/" + ns + "/pods", "mnist-worker-0");
    // name, type, reason, message, kind, object, uid, minute, count
    for (String[] event : new String[][] {
        {"scheduling", "Warning", "FailedScheduling", "0/1 nodes are available", "Pod",
            "mnist-worker-0", podUid, "12:02", "4"},
        {"created", "Normal", "SuccessfulCreatePod", "Created pod: mnist-worker-0", "PyTorchJob",
            "mnist", jobUid, "12:01", "1"},
        {"earlier-run", "Normal", "SuccessfulCreatePod", "Created pod: mnist-master-0",
            "PyTorchJob", "mnist", "uid-of-the-earlier-run", "11:00", "1"},
        {"stranger", "Normal", "Scheduled", "Successfully assigned", "Pod", "other-master-0", "",
            "12:03", "1"}}) {
      operator.post("/api/v1/namespaces/" + ns + "/events", """
          {"apiVersion":"v1","kind":"Event","metadata":{"name":"%s"},"type":"%s",
           "reason":"%s","message":"%s","involvedObject":{"kind":"%s","name":"%s",
           "namespace":"%s","uid":"%s"},"count":%s,
           "lastTimestamp":"2024-05-01T%s:00Z","firstTimestamp":"2024-05-01T%s:00Z"}
          """.formatted(event[0], event[1], event[2], event[3], event[4], event[5], ns,
          event[6], event[8], event[7], event[7]));
    }

    List<JobEvent> events = job.events();

    assertThat(events).extracting(JobEvent::toString).containsExactly(
        "2024-05-01T12:01:00Z Normal SuccessfulCreatePod pytorchjob/mnist: Created pod:"
            + " mnist-worker-0",
        "2024-05-01T12:02:00Z Warning FailedScheduling pod/mnist-worker-0: 0/1 nodes are"
            + " available (x4)");
    assertThat(events.get(1).isWarning()).isTrue();
    assertThat(events.get(1).count()).isEqualTo(4);
    // A status shows the same Warning among its warnings.
    assertThat(job.status().warnings())
        .containsExactly("FailedScheduling pod/mnist-worker-0: 0/1 nodes are available (x4)");
  }

  @Test
  void aWaitThatTimesOutSaysWhyAPodDoesNotRun() {
    unschedulableWorker();
    operator.jobStatus(operator.kubeflow("pytorchjobs") + "/mnist", "{\"conditions\":["
        + condition("Created", "True", "PyTorchJobCreated", "") + "]}");

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMillis(150)))
        .isInstanceOfSatisfying(JobTimeoutException.class, e -> assertThat(e.getMessage())
            .contains("still Created after 150 ms (mnist-worker-0 Unschedulable: " + NO_GPU
                + ")").contains("no node can run the pod").doesNotContain("wait longer"));
  }

  @Test
  void aWaitThatTimesOutOnACrashLoopSaysSoWithTheEventsAndNeverWaitLonger() {
    operator.pyTorchPod("mnist", "master", 0, crashLoop(3));
    operator.pyTorchPhase("mnist", "Running");
    operator.warning("BackOff", "Pod", "mnist-master-0",
        "Back-off restarting failed container pytorch", Instant.parse("2024-05-01T12:00:00Z"));

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMillis(150)))
        .isInstanceOfSatisfying(JobTimeoutException.class, e -> assertThat(e.getMessage())
            .contains("still Running after 150 ms (mnist-master-0 CrashLoopBackOff: back-off"
                + " 40s restarting failed container=pytorch")
            .contains("restarted 3 times")
            .contains("events: BackOff pod/mnist-master-0: Back-off restarting failed container")
            .contains(".backoffLimit(n)").doesNotContain("wait longer"));
  }

  /**
   * A cluster can gain nodes, so the wait goes on, but it says as it happens why a pod waits:
   * before, the scheduler's message showed only in the timeout's message, after the whole wait.
   */
  @Test
  void aWaitSaysAsItHappensWhyAPodIsUnschedulableAndGoesOn() {
    java.util.List<String> notes = new java.util.concurrent.CopyOnWriteArrayList<>();
    TrainingJob stuck = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST).submit(TestJobs.pyTorchJob("stuck", ns), BuildContext.empty(),
            SubmitOptions.DEFAULT, e -> {
              if (e instanceof dev.fairing4j.core.ProgressEvent.Note note) {
                notes.add(note.message());
              }
            });
    operator.pyTorchPod("stuck", "worker", 0, """
        {"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
          "reason":"Unschedulable","message":"%s"}]}
        """.formatted(NO_GPU));

    assertThatThrownBy(() -> stuck.waitForCompletion(Duration.ofSeconds(3)))
        .isInstanceOf(JobTimeoutException.class);

    assertThat(notes).filteredOn(n -> n.contains("stuck-worker-0")).singleElement().asString()
        .contains("stuck: stuck-worker-0 waits: Unschedulable: " + NO_GPU,
            "the wait goes on");
  }
}

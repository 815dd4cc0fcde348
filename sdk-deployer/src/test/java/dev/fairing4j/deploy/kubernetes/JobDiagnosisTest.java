package dev.fairing4j.deploy.kubernetes;

import static dev.fairing4j.deploy.kubernetes.KubernetesJobHandleTest.condition;
import static dev.fairing4j.deploy.kubernetes.KubernetesJobHandleTest.operatorPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.internal.SubmitOptions;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Why a job's pods do not run, as status() tells it: the scheduler's message for an Unschedulable
 * pod, the image of one that cannot be pulled, the last lines of a crash-looping container, and
 * the Warning events on the job and its pods.
 */
class JobDiagnosisTest {
  private static final String NS = "team";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";
  private static final String EVENTS = "/api/v1/namespaces/" + NS + "/events";
  private static final String NO_GPU = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.";
  /** The query client-java builds for a bounded read of the previous container's log. */
  private static final String PREVIOUS_LOG =
      "/log?container=pytorch&limitBytes=16384&previous=true&tailLines=5";

  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  private final MockObjects mock = new MockObjects(K8S);
  private TrainingJob job;

  @BeforeEach
  void submit() {
    job = Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(TestJobs.FAST)
        .submit(TestJobs.pyTorchJob("mnist", NS), BuildContext.empty(), SubmitOptions.DEFAULT,
            e -> { });
  }

  private void unschedulableWorker() {
    mock.post(PODS, operatorPod("mnist", "worker", 0, """
        {"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
          "reason":"Unschedulable","message":"%s"}]}
        """.formatted(NO_GPU)));
  }

  private static String crashLoop(int restarts) {
    return """
        {"phase":"Running","containerStatuses":[{"name":"pytorch","restartCount":%d,
          "state":{"waiting":{"reason":"CrashLoopBackOff",
            "message":"back-off 40s restarting failed container=pytorch"}},
          "lastState":{"terminated":{"exitCode":1,"reason":"Error"}}}]}
        """.formatted(restarts);
  }

  private void event(String name, String type, String reason, String kind, String involved,
      String message, String time) {
    mock.post(EVENTS, """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"%s"},"type":"%s",
         "reason":"%s","message":"%s","involvedObject":{"kind":"%s","name":"%s"},
         "lastTimestamp":"%s"}
        """.formatted(name, type, reason, message, kind, involved, time));
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
    mock.post(PODS, operatorPod("mnist", "master", 0, """
        {"phase":"Pending","containerStatuses":[{"name":"pytorch","restartCount":0,
          "image":"%s",
          "state":{"waiting":{"reason":"ErrImagePull","message":"rpc error: code = NotFound"}}}]}
        """.formatted(TestJobs.IMAGE)));
    mock.post(PODS, operatorPod("mnist", "worker", 0, """
        {"phase":"Pending","containerStatuses":[{"name":"pytorch","restartCount":0,
          "state":{"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image"}}}]}
        """));

    JobStatus status = job.status();

    assertThat(status.pods()).extracting(p -> p.reason().orElseThrow())
        .containsExactly("ErrImagePull", "ImagePullBackOff");
    assertThat(status.pods()).allSatisfy(p ->
        assertThat(p.message().orElseThrow()).contains("(image " + TestJobs.IMAGE + ")"));
    assertThat(status.toTable()).contains("ImagePullBackOff: Back-off pulling image (image "
        + TestJobs.IMAGE + ")");
  }

  @Test
  void aCrashLoopingPodShowsTheLastLinesOfItsPreviousContainer() {
    mock.post(PODS, operatorPod("mnist", "master", 0, crashLoop(4)));
    K8S.server().expect().get().withPath(PODS + "/mnist-master-0" + PREVIOUS_LOG)
        .andReturn(200, "loading data\nTraceback (most recent call last):\n"
            + "  File \"/app/mnist.py\", line 3, in <module>\n    import torchvision\n\n"
            + "ModuleNotFoundError: No module named 'torchvision'\n")
        .always();

    PodInfo master = job.status().pods().get(0);

    assertThat(master.reason()).contains("CrashLoopBackOff");
    assertThat(master.restarts()).isEqualTo(4);
    assertThat(master.exitCode()).contains(1);
    // The last five non-blank lines, on one line so the pod table stays aligned.
    assertThat(master.message()).contains("back-off 40s restarting failed container=pytorch;"
        + " last lines: loading data | Traceback (most recent call last): | File"
        + " \"/app/mnist.py\", line 3, in <module> | import torchvision"
        + " | ModuleNotFoundError: No module named 'torchvision'");
    assertThat(K8S.requestLines()).contains("GET " + PODS + "/mnist-master-0" + PREVIOUS_LOG);
  }

  @Test
  void aPreviousLogThatCannotBeReadLeavesTheKubeletsMessage() {
    mock.post(PODS, operatorPod("mnist", "master", 0, crashLoop(1)));
    K8S.server().expect().get().withPath(PODS + "/mnist-master-0" + PREVIOUS_LOG)
        .andReturn(400, TestJobs.status(400, "BadRequest", "previous terminated container"
            + " \\\"pytorch\\\" in pod \\\"mnist-master-0\\\" not found", "{}"))
        .always();

    PodInfo master = job.status().pods().get(0);

    assertThat(master.reason()).contains("CrashLoopBackOff");
    assertThat(master.message()).contains("back-off 40s restarting failed container=pytorch");
  }

  @Test
  void theKubeletsLogGoneAnswerIsNoLastLine() {
    // Seen on a real cluster: for a container it has removed the kubelet answers 200 with this
    // one line instead of the log; it is not what the container printed.
    mock.post(PODS, operatorPod("mnist", "master", 0, crashLoop(1)));
    K8S.server().expect().get().withPath(PODS + "/mnist-master-0" + PREVIOUS_LOG)
        .andReturn(200, "unable to retrieve container logs for containerd://0123abcd")
        .always();

    PodInfo master = job.status().pods().get(0);

    // Exactly the kubelet's waiting message: no "last lines" were appended.
    assertThat(master.message()).contains("back-off 40s restarting failed container=pytorch");
  }

  @Test
  void onlyTheFirstFewCrashLoopingPodsHaveTheirLogsRead() {
    IntStream.range(0, 5).forEach(i ->
        mock.post(PODS, operatorPod("mnist", "worker", i, crashLoop(2))));
    int before = K8S.requestCount();

    JobStatus status = job.status();

    assertThat(status.pods()).hasSize(5)
        .allSatisfy(p -> assertThat(p.reason()).contains("CrashLoopBackOff"));
    assertThat(K8S.requestLines().subList(before, K8S.requestCount()))
        .filteredOn(l -> l.contains("/log?")).hasSize(3);
  }

  @Test
  void warningEventsOnTheJobAndItsPodsAreInTheStatusOldestFirst() {
    unschedulableWorker();
    event("e1", "Warning", "FailedScheduling", "Pod", "mnist-worker-0", NO_GPU,
        "2024-05-01T12:01:00Z");
    event("e2", "Warning", "Unschedulable", "PyTorchJob", "mnist",
        "Pod team/mnist-worker-0 is unschedulable", "2024-05-01T12:00:00Z");
    event("e3", "Warning", "FailedScheduling", "Pod", "other-worker-0", "not ours",
        "2024-05-01T12:02:00Z");
    event("e4", "Warning", "Unschedulable", "PyTorchJob", "other", "not ours either",
        "2024-05-01T12:02:00Z");
    event("e5", "Normal", "Scheduled", "Pod", "mnist-worker-0", "normal, not a warning",
        "2024-05-01T12:03:00Z");

    JobStatus status = job.status();

    assertThat(status.warnings()).containsExactly(
        "Unschedulable pytorchjob/mnist: Pod team/mnist-worker-0 is unschedulable",
        "FailedScheduling pod/mnist-worker-0: " + NO_GPU);
    assertThat(status.toTable()).endsWith("""
        EVENTS
        Unschedulable pytorchjob/mnist: Pod team/mnist-worker-0 is unschedulable
        FailedScheduling pod/mnist-worker-0: %s""".formatted(NO_GPU));
    assertThat(status.toString()).doesNotContain("FailedScheduling");
  }

  @Test
  void warningsOfAnEarlierJobOfTheSameNameAreNotThisJobs() {
    // Seen on a real cluster: events outlive their object by an hour, so a job submitted again
    // under its name (replaceExisting) showed its predecessor's Unschedulable events.
    @SuppressWarnings("unchecked")
    String uid = String.valueOf(((java.util.Map<String, Object>) mock.get(
        "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs/mnist").get("metadata"))
        .get("uid"));
    assertThat(uid).isNotBlank();
    mock.post(EVENTS, """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"old"},"type":"Warning",
         "reason":"Unschedulable","message":"the earlier run's",
         "involvedObject":{"kind":"PyTorchJob","name":"mnist","uid":"uid-of-the-earlier-run"},
         "lastTimestamp":"2024-05-01T12:00:00Z"}
        """);
    mock.post(EVENTS, """
        {"apiVersion":"v1","kind":"Event","metadata":{"name":"new"},"type":"Warning",
         "reason":"BackOff","message":"this run's",
         "involvedObject":{"kind":"PyTorchJob","name":"mnist","uid":"%s"},
         "lastTimestamp":"2024-05-01T12:01:00Z"}
        """.formatted(uid));

    assertThat(job.status().warnings()).containsExactly("BackOff pytorchjob/mnist: this run's");
  }

  @Test
  void aStatusKeepsTheNewestTenWarnings() {
    IntStream.range(0, 12).forEach(i -> event("e" + i, "Warning", "BackOff", "PyTorchJob",
        "mnist", "attempt " + i, "2024-05-01T12:%02d:00Z".formatted(i)));

    assertThat(job.status().warnings()).hasSize(10)
        .first().isEqualTo("BackOff pytorchjob/mnist: attempt 2");
    assertThat(job.status().warnings()).last().isEqualTo("BackOff pytorchjob/mnist: attempt 11");
  }

  @Test
  void eventsThatCannotBeListedLeaveTheStatusWithoutWarnings() {
    unschedulableWorker();
    K8S.server().expect().get().withPath(EVENTS)
        .andReturn(403, TestJobs.status(403, "Forbidden", "events is forbidden", "{}")).always();

    JobStatus status = job.status();

    assertThat(status.warnings()).isEmpty();
    assertThat(status.pods()).singleElement()
        .satisfies(p -> assertThat(p.reason()).contains("Unschedulable"));
  }

  @Test
  void aWaitThatTimesOutSaysWhyAPodDoesNotRun() {
    unschedulableWorker();
    mock.jsonPatch("/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs/mnist/status",
        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"conditions\":["
            + condition("Created", "True", "PyTorchJobCreated", "") + "]}}]");

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMillis(150)))
        .isInstanceOfSatisfying(JobTimeoutException.class, e -> assertThat(e.getMessage())
            .contains("still Created after PT0.15S (mnist-worker-0 Unschedulable: " + NO_GPU
                + ")"));
  }
}

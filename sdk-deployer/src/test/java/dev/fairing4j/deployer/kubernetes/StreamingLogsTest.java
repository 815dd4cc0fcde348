package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Following logs as live streams against scripted log responses: a stream that breaks and is
 * resumed, a container that restarts (its previous instance read once), a pod deleted while
 * followed, an init container of a pod stuck initialising. No line is lost or repeated and each
 * replica's lines keep their order.
 *
 * <p>On a mockwebserver3 fake: a real API server without a node serves no logs; the real cluster
 * suite covers logs. A pod deleted while followed, without log lines, is also checked against a
 * real API server in {@link KubernetesJobLogsIT}.
 */
@Timeout(20)
class StreamingLogsTest {
  /** A pod status naming instance c2 running, restarted after instance c1 exited with 7. */
  private static final String RESTARTED_C2 = """
      {"phase":"Running","containerStatuses":[{"name":"pytorch",
       "containerID":"containerd://c2","restartCount":1,"state":{"running":{}},
       "lastState":{"terminated":{"exitCode":7,"containerID":"containerd://c1",
       "finishedAt":"2024-05-01T12:00:00Z"}}}]}""".replace("\n", "");

  private static final String NS = "team";
  private static final String JOB = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs/mnist";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";

  @TempDir
  Path dir;

  private final AtomicReference<String> jobPhase = new AtomicReference<>("Running");
  private final Map<String, String> pods = new ConcurrentHashMap<>();
  private final Map<String, Deque<Script>> logs = new ConcurrentHashMap<>();
  private final List<RecordedRequest> logRequests = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger podLists =
      new java.util.concurrent.atomic.AtomicInteger();
  private WatchingApiServer api;
  private TrainingJob job;

  /**
   * One log response and what changes on the cluster when it is served; with {@code held} > 0,
   * only that many bytes come at once and the rest half a minute later (a stream left open).
   */
  private record Script(String body, Runnable then, int held) {}

  @BeforeEach
  void start() {
    api = new WatchingApiServer("/unused", this::answer);
    job = Clusters.kubernetes().kubeconfig(api.kubeconfig(dir, NS)).withTimings(TestJobs.FAST)
        .attach("kubeflow.org/v1", "PyTorchJob", "mnist", NS);
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private MockResponse answer(RecordedRequest request) {
    String path = request.getUrl().encodedPath();
    if (path.equals(JOB)) {
      return WatchingApiServer.json(200, jobObject(jobPhase.get()));
    }
    if (path.equals(PODS)) {
      podLists.incrementAndGet();
      return WatchingApiServer.json(200, "{\"items\":[" + String.join(",", pods.values())
          + "]}");
    }
    if (path.startsWith(PODS + "/") && path.endsWith("/log")) {
      logRequests.add(request);
      String pod = path.substring(PODS.length() + 1, path.length() - "/log".length());
      String key = pod + "/" + request.getUrl().queryParameter("container")
          + ("true".equals(request.getUrl().queryParameter("previous")) ? "/previous" : "");
      Script script = logs.getOrDefault(key, new ArrayDeque<>()).poll();
      if (script == null) {
        return new MockResponse.Builder().code(200).body("")
            .onResponseEnd(mockwebserver3.SocketEffect.ShutdownConnection.INSTANCE).build();
      }
      script.then().run();
      MockResponse.Builder response = new MockResponse.Builder().code(200)
          .addHeader("Content-Type", "text/plain").body(script.body())
          .onResponseEnd(mockwebserver3.SocketEffect.ShutdownConnection.INSTANCE);
      if (script.held() > 0) {
        response.throttleBody(script.held(), 30, java.util.concurrent.TimeUnit.SECONDS);
      }
      return response.build();
    }
    if (path.startsWith(PODS + "/")) {
      String pod = pods.get(path.substring(PODS.length() + 1));
      return pod != null ? WatchingApiServer.json(200, pod) : WatchingApiServer.json(404,
          TestJobs.status(404, "NotFound", "pods \"x\" not found",
              "{\"name\":\"x\",\"kind\":\"pods\"}"));
    }
    return WatchingApiServer.json(404, TestJobs.status(404, "NotFound", "no " + path, "{}"));
  }

  private static String jobObject(String phase) {
    return """
        {"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",
         "metadata":{"name":"mnist","namespace":"team","resourceVersion":"1"},
         "spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":2}}},
         "status":{"conditions":[%s]}}""".formatted(
        KubernetesJobHandleTest.condition(phase, "True", "PyTorchJob" + phase, ""));
  }

  private void pod(String type, int index, String status) {
    pods.put("mnist-" + type + "-" + index,
        KubernetesJobHandleTest.operatorPod("mnist", type, index, status).replace("\n", ""));
  }

  private void log(String podAndContainer, String body, Runnable then) {
    logs.computeIfAbsent(podAndContainer, k -> new ArrayDeque<>()).add(new Script(body, then,
        0));
  }

  /** A log response that sends {@code first} and then stays open. */
  private void openLog(String podAndContainer, String first, Runnable then) {
    String body = first + line("23:59:59.000000000", "only after half a minute");
    logs.computeIfAbsent(podAndContainer, k -> new ArrayDeque<>()).add(new Script(body, then,
        first.getBytes(java.nio.charset.StandardCharsets.UTF_8).length));
  }

  private static String running(String id) {
    return "{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"pytorch\",\"containerID\":"
        + "\"containerd://" + id + "\",\"restartCount\":0,\"state\":{\"running\":{}}}]}";
  }

  private static String line(String time, String text) {
    return "2024-05-01T" + time + "Z " + text + "\n";
  }

  @Test
  void aReconnectAndARestartNeitherLoseNorRepeatLines() {
    pod("master", 0, running("c1"));
    pod("worker", 0, running("w1"));
    // The first stream breaks after three lines.
    log("mnist-master-0/pytorch", line("12:00:00.100000000", "one")
        + line("12:00:00.500000000", "two") + line("12:00:01.200000000", "three"), () -> { });
    // Resumed from 12:00:01 (one-second precision): "three" comes again. Then the container
    // crashes and restarts; our stream ended before its last line.
    log("mnist-master-0/pytorch", line("12:00:01.200000000", "three")
        + line("12:00:01.700000000", "four"), () -> pod("master", 0, """
        {"phase":"Running","containerStatuses":[{"name":"pytorch",
         "containerID":"containerd://c2","restartCount":1,"state":{"running":{}},
         "lastState":{"terminated":{"exitCode":1,"containerID":"containerd://c1"}}}]}"""
        .replace("\n", "")));
    log("mnist-master-0/pytorch/previous", line("12:00:01.200000000", "three")
        + line("12:00:01.700000000", "four") + line("12:00:02.000000000", "CUDA error: crash"),
        () -> { });
    log("mnist-master-0/pytorch", line("12:00:03.000000000", "five (restarted)")
        + line("12:00:03.500000000", "six"), () -> {
          pod("master", 0, """
              {"phase":"Succeeded","containerStatuses":[{"name":"pytorch",
               "containerID":"containerd://c2","restartCount":1,
               "state":{"terminated":{"exitCode":0,"containerID":"containerd://c2"}}}]}"""
              .replace("\n", ""));
          jobPhase.set("Succeeded");
        });
    log("mnist-worker-0/pytorch", line("12:00:00.300000000", "w-one")
        + line("12:00:00.300000000", "w-two, same instant"), () -> { });
    List<LogLine> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().stream(seen::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen.stream().filter(l -> l.replica().equals("master-0")).map(LogLine::text))
        .containsExactly("one", "two", "three", "four", "CUDA error: crash", "five (restarted)",
            "six");
    assertThat(seen.stream().filter(l -> l.replica().equals("worker-0")).map(LogLine::text))
        .containsExactly("w-one", "w-two, same instant");
    assertThat(seen).hasSize(9);
    List<RecordedRequest> master = logRequests.stream()
        .filter(r -> r.getUrl().encodedPath().contains("mnist-master-0")).toList();
    assertThat(master.get(0).getUrl().queryParameter("follow")).isEqualTo("true");
    assertThat(master.get(0).getUrl().queryParameter("timestamps")).isEqualTo("true");
    assertThat(master.get(0).getUrl().queryParameter("sinceTime")).isNull();
    assertThat(master.get(1).getUrl().queryParameter("sinceTime"))
        .isEqualTo("2024-05-01T12:00:01Z");
    assertThat(master).filteredOn(r -> "true".equals(r.getUrl().queryParameter("previous")))
        .hasSize(1).first().satisfies(r -> {
          assertThat(r.getUrl().queryParameter("sinceTime")).isEqualTo("2024-05-01T12:00:01Z");
          assertThat(r.getUrl().queryParameter("follow")).isNull();
        });
  }

  @Test
  void aContainerThatRestartedBeforeTheFirstLookHasItsFirstRunRead() {
    // Seen on a real cluster: a script that fails at once is restarted by the kubelet (under
    // OnFailure) before the stream first looks, and its first run's lines were never shown.
    pod("master", 0, """
        {"phase":"Running","containerStatuses":[{"name":"pytorch",
         "containerID":"containerd://c2","restartCount":1,"state":{"running":{}},
         "lastState":{"terminated":{"exitCode":7,"containerID":"containerd://c1"}}}]}"""
        .replace("\n", ""));
    log("mnist-master-0/pytorch/previous", line("12:00:00.100000000", "first run: failing"),
        () -> { });
    log("mnist-master-0/pytorch", line("12:00:01.100000000", "second run"), () -> {
      pod("master", 0, """
          {"phase":"Succeeded","containerStatuses":[{"name":"pytorch",
           "containerID":"containerd://c2","restartCount":1,
           "state":{"terminated":{"exitCode":0,"containerID":"containerd://c2"}},
           "lastState":{"terminated":{"exitCode":7,"containerID":"containerd://c1"}}}]}"""
          .replace("\n", ""));
      jobPhase.set("Succeeded");
    });
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).containsExactly("[master-0] first run: failing", "[master-0] second run");
    assertThat(logRequests).filteredOn(r -> "true".equals(r.getUrl().queryParameter("previous")))
        .hasSize(1);
  }

  @Test
  void aStatusThatLagsTheKubeletLosesNoLineOfTheRunBeforeTheRestart() {
    // Seen on the real cluster in CI, under load, and not to be produced there on demand (hence
    // this fake): the pod's status still named the first instance, running, while the kubelet
    // already served the restarted one's log. The stream took the second run's line for the
    // first's, then read the first run's log only from after that line: its lines were lost.
    pod("master", 0, running("c1"));
    log("mnist-master-0/pytorch", line("12:00:01.100000000", "second run"),
        () -> pod("master", 0, RESTARTED_C2));
    log("mnist-master-0/pytorch/previous", line("12:00:00.100000000", "first run: failing")
        + line("12:00:00.200000000", "first run: exit 7"), () -> { });
    successorRunsToItsEnd(RESTARTED_C2);
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    // The first run's lines come late, after the line the stream took for theirs, but come.
    assertThat(seen).containsExactly("[master-0] second run", "[master-0] first run: failing",
        "[master-0] first run: exit 7", "[master-0] second run: done");
    assertThat(logRequests).filteredOn(r -> "true".equals(r.getUrl().queryParameter("previous")))
        .singleElement().satisfies(r ->
            assertThat(r.getUrl().queryParameter("sinceTime")).isNull());
  }

  @Test
  void aLaggingStatusWhileTheSuccessorRunsOnIsCaughtWithoutWaitingForItsEnd() {
    // As above, but the restarted instance runs on (seen in CI: the test's second run waits to
    // be released), so its stream stays open: the status must be checked while it is.
    pod("master", 0, running("c1"));
    openLog("mnist-master-0/pytorch", line("12:00:01.100000000", "second run"),
        () -> pod("master", 0, RESTARTED_C2));
    log("mnist-master-0/pytorch/previous", line("12:00:00.100000000", "first run: failing"),
        () -> { });
    openLog("mnist-master-0/pytorch", line("12:00:01.100000000", "second run")
        + line("12:00:02.100000000", "second run: still running"), () -> { });
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      await(() -> seen.contains("[master-0] first run: failing")
          && seen.contains("[master-0] second run: still running"));
    }

    assertThat(seen).containsExactly("[master-0] second run", "[master-0] first run: failing",
        "[master-0] second run: still running");
  }

  @Test
  void aStreamReopenedOnAnInstanceThatExitedIsCheckedAgainstTheStatus() {
    // Seen in CI: the first run's stream ended with its exit while the status still named it,
    // so the reopened stream, the successor's, was taken for the same instance and not checked.
    // It stayed open until the successor ended; the first run's log was then asked for after
    // the pod was over, when the kubelet had removed it, and a note said lines may be lost.
    String restarted = RESTARTED_C2.replace("12:00:00Z", "12:00:00.500Z");
    pod("master", 0, running("c1"));
    log("mnist-master-0/pytorch", line("12:00:00.100000000", "first run: failing"), () -> { });
    openLog("mnist-master-0/pytorch", line("12:00:01.100000000", "second run"),
        () -> pod("master", 0, restarted));
    log("mnist-master-0/pytorch/previous", line("12:00:00.100000000", "first run: failing"),
        () -> { });
    successorRunsToItsEnd(restarted);
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).containsExactly("[master-0] first run: failing", "[master-0] second run",
        "[master-0] second run: done");
  }

  @Test
  void aRunWhoseLogWasReadToItsEndNeedsNoNoteWhenTheKubeletRemovedIt() {
    // Seen in CI (1 run in 3): the first run's stream ended with its exit, the status still
    // named it, and the successor's whole run came and ended on the reopened stream before the
    // status was checked. The first run's log, asked for after the pod was over, was gone; every
    // line of it had come, yet a note said the run's log was removed.
    String restarted = RESTARTED_C2.replace("12:00:00Z", "12:00:00.500Z");
    pod("master", 0, running("c1"));
    log("mnist-master-0/pytorch", line("12:00:00.100000000", "first run: failing"), () -> { });
    successorRunsToItsEnd(restarted);
    log("mnist-master-0/pytorch/previous",
        "unable to retrieve container logs for containerd://c1\n", () -> { });
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).containsExactly("[master-0] first run: failing", "[master-0] second run",
        "[master-0] second run: done");
    assertThat(logRequests).filteredOn(r -> "true".equals(r.getUrl().queryParameter("previous")))
        .hasSize(1);
  }

  @Test
  void aRunReadToItsEndNeedsNoNoteWhenItsSuccessorsStreamWasCutAndTheKubeletRemovedIt() {
    // Seen in CI after the case above was mended: the stream reopened while the status lagged
    // carried the successor's lines and was cut by the status check; the first run's log, asked
    // for once the pod was over, was gone. Its first stream had read it to its end.
    String restarted = RESTARTED_C2.replace("12:00:00Z", "12:00:00.500Z");
    pod("master", 0, running("c1"));
    log("mnist-master-0/pytorch", line("12:00:00.100000000", "first run: failing"), () -> { });
    openLog("mnist-master-0/pytorch", line("12:00:01.100000000", "second run"),
        () -> pod("master", 0, restarted));
    log("mnist-master-0/pytorch/previous",
        "unable to retrieve container logs for containerd://c1\n", () -> { });
    successorRunsToItsEnd(restarted);
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).containsExactly("[master-0] first run: failing", "[master-0] second run",
        "[master-0] second run: done");
  }

  /**
   * The restarted instance's whole log, served once: its two lines, after which its pod (as
   * {@code restarted}, now ended) and the job succeed.
   */
  private void successorRunsToItsEnd(String restarted) {
    log("mnist-master-0/pytorch", line("12:00:01.100000000", "second run")
        + line("12:00:02.100000000", "second run: done"), () -> {
          pod("master", 0, restarted.replace("\"state\":{\"running\":{}}",
              "\"state\":{\"terminated\":{\"exitCode\":0}}").replace("Running", "Succeeded"));
          jobPhase.set("Succeeded");
        });
  }

  @Test
  void theKubeletsAnswerForARemovedContainerIsANoteNotALine() {
    // Seen on a real cluster: once the pod is over the kubelet removes the earlier run's
    // container and answers the previous log with 200 and this line, without a timestamp.
    pod("master", 0, """
        {"phase":"Running","containerStatuses":[{"name":"pytorch",
         "containerID":"containerd://c2","restartCount":1,"state":{"running":{}},
         "lastState":{"terminated":{"exitCode":7,"containerID":"containerd://c1"}}}]}"""
        .replace("\n", ""));
    log("mnist-master-0/pytorch/previous",
        "unable to retrieve container logs for containerd://c1\n", () -> { });
    log("mnist-master-0/pytorch", line("12:00:01.100000000", "second run"),
        () -> jobPhase.set("Succeeded"));
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).containsExactly("[master-0] (the kubelet no longer has this log: the run"
        + " before the restart was removed)", "[master-0] second run");
  }

  @Test
  void aPodDeletedWhileFollowedEndsItsStreamWithANote() {
    pod("master", 0, running("c1"));
    pod("worker", 1, running("w1"));
    log("mnist-worker-1/pytorch", line("12:00:00.100000000", "before")
        + line("12:00:00.200000000", "preempted"), () -> pods.remove("mnist-worker-1"));
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      await(() -> seen.size() >= 3);
      assertThat(stream.isDone()).isFalse(); // the job runs on
      jobPhase.set("Succeeded");
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).containsExactly("[worker-1] before", "[worker-1] preempted",
        "[worker-1] (pod mnist-worker-1 was deleted; its log ends here)");
  }

  @Test
  void aPodCreatedWhileFollowingIsPickedUp() {
    pod("master", 0, running("c1"));
    log("mnist-master-0/pytorch", line("12:00:00.100000000", "master up"), () -> { });
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      await(() -> seen.contains("[master-0] master up"));
      log("mnist-worker-0/pytorch", line("12:00:05.000000000", "late worker up"), () -> { });
      pod("worker", 0, running("w1"));
      await(() -> seen.contains("[worker-0] late worker up"));
      jobPhase.set("Succeeded");
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).containsExactly("[master-0] master up", "[worker-0] late worker up");
  }

  @Test
  void theInitContainersOfAPodStuckInitialisingAreFollowed() {
    pods.put("mnist-worker-0", KubernetesJobHandleTest.operatorPod("mnist", "worker", 0, """
        {"phase":"Pending","initContainerStatuses":[{"name":"fetch-data",
         "containerID":"containerd://i1",
         "state":{"running":{"startedAt":"2024-05-01T12:00:00Z"}}}],
         "containerStatuses":[{"name":"pytorch","state":{"waiting":{"reason":"PodInitializing"}}}]}
        """).replace("\n", ""));
    log("mnist-worker-0/fetch-data", line("12:00:00.100000000", "downloading dataset")
        + line("12:00:00.900000000", "retrying: connection refused"), () -> { });
    List<LogLine> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().stream(seen::add)) {
      await(() -> seen.size() >= 2);
      jobPhase.set("Failed");
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).extracting(LogLine::container).containsOnly("fetch-data");
    assertThat(seen).extracting(LogLine::toString).containsExactly(
        "[worker-0] downloading dataset", "[worker-0] retrying: connection refused");
    assertThat(logRequests).noneMatch(r -> "pytorch".equals(r.getUrl().queryParameter(
        "container")));
  }

  @Test
  void aHealthyInitContainerIsNotFollowed() {
    // Seen on a real cluster: the operator gives every PyTorch Worker an init container that
    // waits for the Master's name; its nslookup output showed as the Worker's first lines.
    pods.put("mnist-worker-0", KubernetesJobHandleTest.operatorPod("mnist", "worker", 0, """
        {"phase":"Pending","initContainerStatuses":[{"name":"init-pytorch",
         "containerID":"containerd://i1","state":{"running":{"startedAt":"%s"}}}],
         "containerStatuses":[{"name":"pytorch","state":{"waiting":{"reason":"PodInitializing"}}}]}
        """.formatted(java.time.Instant.now())).replace("\n", ""));
    log("mnist-worker-0/init-pytorch", line("12:00:00.100000000", "Server: 10.244.0.1"),
        () -> { });
    log("mnist-worker-0/pytorch", line("12:00:02.000000000", "training"),
        () -> jobPhase.set("Succeeded"));
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      int lists = podLists.get();
      await(() -> podLists.get() >= lists + 3); // looked at the initialising pod a few times
      pod("worker", 0, running("w1"));
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(seen).containsExactly("[worker-0] training");
    assertThat(logRequests).noneMatch(r -> "init-pytorch".equals(r.getUrl().queryParameter(
        "container")));
  }

  private static void await(BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 10 s").isLessThan(deadline);
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}

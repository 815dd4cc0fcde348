package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Log fan-in at volume: 8 replicas of 50,000 timestamped lines each, followed as live streams.
 * Every stream breaks half way and is resumed with {@code sinceTime} (second precision, so the
 * resumed answers repeat up to 10,000 lines each); the consumer still gets every line exactly
 * once, each replica's lines in order.
 *
 * <p>On a mockwebserver3 fake: a real API server without a node serves no logs; the real cluster
 * suite covers logs.
 */
@Timeout(90)
class LogFanInTest {
  private static final String NS = "team";
  private static final String JOB = "/apis/kubeflow.org/v1/namespaces/" + NS
      + "/pytorchjobs/fanin";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";
  private static final int LINES = 50_000;
  private static final int BREAK_AT = 25_000;
  /** 100 microseconds apart: 10,000 lines share each second. */
  private static final long STEP_NANOS = 100_000;
  private static final Instant START = Instant.parse("2024-05-01T12:00:00Z");
  private static final List<String> REPLICAS = List.of("master-0", "worker-0", "worker-1",
      "worker-2", "worker-3", "worker-4", "worker-5", "worker-6");

  @TempDir
  Path dir;

  private final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
  private final Map<String, Boolean> finished = new ConcurrentHashMap<>();
  private WatchingApiServer api;
  private TrainingJob job;

  @BeforeEach
  void start() {
    api = new WatchingApiServer("/unused", this::answer);
    job = Clusters.kubernetes().kubeconfig(api.kubeconfig(dir, NS)).withTimings(TestJobs.FAST)
        .attach("kubeflow.org/v1", "PyTorchJob", "fanin", NS);
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private static String podName(String replica) {
    return "fanin-" + replica;
  }

  private MockResponse answer(RecordedRequest request) {
    String path = request.getUrl().encodedPath();
    if (path.equals(JOB)) {
      boolean over = finished.size() == REPLICAS.size();
      return WatchingApiServer.json(200, jobObject(over ? "Succeeded" : "Running"));
    }
    if (path.equals(PODS)) {
      List<String> pods = new ArrayList<>();
      REPLICAS.forEach(r -> pods.add(pod(r)));
      return WatchingApiServer.json(200, "{\"items\":[" + String.join(",", pods) + "]}");
    }
    if (path.startsWith(PODS + "/") && path.endsWith("/log")) {
      String pod = path.substring(PODS.length() + 1, path.length() - "/log".length());
      String replica = pod.substring("fanin-".length());
      int n = served.computeIfAbsent(replica, r -> new AtomicInteger()).incrementAndGet();
      String since = n == 1 ? null : request.getUrl().queryParameter("sinceTime");
      String body = logBody(replica, since == null ? null : Instant.parse(since),
          n == 1 ? BREAK_AT : LINES);
      if (n >= 2) {
        finished.put(replica, true); // the container exits after this stream
      }
      return new MockResponse.Builder().code(200).addHeader("Content-Type", "text/plain")
          .body(body).onResponseEnd(mockwebserver3.SocketEffect.ShutdownConnection.INSTANCE)
          .build();
    }
    if (path.startsWith(PODS + "/")) {
      return WatchingApiServer.json(200, pod(path.substring(PODS.length() + 1)
          .substring("fanin-".length())));
    }
    return WatchingApiServer.json(404, TestJobs.status(404, "NotFound", "no " + path, "{}"));
  }

  /** Lines from the second of {@code since} (the whole log when null), up to {@code end}. */
  static String logBody(String replica, Instant since, int end) {
    int first = 0;
    if (since != null) {
      long offset = since.getEpochSecond() - START.getEpochSecond();
      first = (int) Math.max(0, offset * 1_000_000_000L / STEP_NANOS);
    }
    StringBuilder body = new StringBuilder((end - first) * 72);
    for (int i = first; i < end; i++) {
      body.append(START.plusNanos(i * STEP_NANOS)).append(' ').append(replica).append(" seq=")
          .append(i).append(" loss=0.").append(1000 + i % 9000).append('\n');
    }
    return body.toString();
  }

  private String pod(String replica) {
    String type = replica.substring(0, replica.indexOf('-'));
    int index = Integer.parseInt(replica.substring(replica.indexOf('-') + 1));
    String phase = finished.containsKey(replica) ? "Succeeded" : "Running";
    String state = phase.equals("Running") ? "{\"running\":{}}"
        : "{\"terminated\":{\"exitCode\":0,\"containerID\":\"containerd://" + replica + "\"}}";
    return KubernetesJobHandleTest.operatorPod("fanin", type, index, "{\"phase\":\"" + phase
        + "\",\"containerStatuses\":[{\"name\":\"pytorch\",\"containerID\":\"containerd://"
        + replica + "\",\"restartCount\":0,\"state\":" + state + "}]}").replace("\n", "");
  }

  private static String jobObject(String phase) {
    return """
        {"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",
         "metadata":{"name":"fanin","namespace":"team","resourceVersion":"1"},
         "spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":7}}},
         "status":{"conditions":[%s]}}""".formatted(
        KubernetesJobHandleTest.condition(phase, "True", "PyTorchJob" + phase, ""))
        .replace("\n", "");
  }

  @Test
  void eightReplicasOfFiftyThousandLinesArriveOnceAndInOrder() {
    Map<String, int[]> next = new HashMap<>();
    List<String> problems = new ArrayList<>();
    AtomicInteger total = new AtomicInteger();
    REPLICAS.forEach(r -> next.put(r, new int[1]));
    long start = System.nanoTime();

    // Deliveries are serialised by the stream, so plain collections suffice here.
    try (LogStream stream = job.logs().stream(line -> check(line, next, problems, total))) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(80))).as("stream ended").isTrue();
    }

    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("log fan-in: %d lines in %.2f s = %.0f lines/s%n", total.get(), seconds,
        total.get() / seconds);
    assertThat(problems).isEmpty();
    assertThat(total.get()).isEqualTo(REPLICAS.size() * LINES);
    REPLICAS.forEach(r -> assertThat(next.get(r)[0]).as(r).isEqualTo(LINES));
    // Each container: the broken stream, its resumption, and at most one read to the end.
    served.forEach((r, count) -> assertThat(count.get()).as(r).isBetween(2, 3));
  }

  private static void check(LogLine line, Map<String, int[]> next, List<String> problems,
      AtomicInteger total) {
    total.incrementAndGet();
    int[] expected = next.get(line.replica());
    String text = line.text();
    int seq = Integer.parseInt(text.substring(text.indexOf("seq=") + 4, text.indexOf(" loss=")));
    if (expected == null || seq != expected[0] || !text.startsWith(line.replica() + " ")) {
      if (problems.size() < 10) {
        problems.add(line.replica() + ": expected seq " + (expected == null ? "?" : expected[0])
            + ", got " + text);
      }
    }
    if (expected != null) {
      expected[0] = seq + 1;
    }
  }
}

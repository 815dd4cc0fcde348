package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.deployer.Clusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * waitForCompletion against the two watch faults a real API server cannot be made to produce on
 * demand, on a scripted mockwebserver3 fake: a connection cut in the middle of an event line,
 * resumed from the version of the last BOOKMARK (a real server sends bookmarks about once a
 * minute), and a watch answered with an HTTP 410 response instead of a stream (kube-apiserver
 * v1.32 answers a too old resourceVersion with an ERROR event inside a 200 stream, with and
 * without its watch cache; proxies and older servers answer 410). Everything else about the
 * watched wait (restarts, ERROR 410 after compaction, failures, timeouts with DELETE and SUSPEND,
 * the polling fallback) runs against a real API server in {@link WatchedWaitIT}.
 */
@Timeout(20)
class WatchedWaitTest {
  private static final String NS = "team";
  private static final String JOBS = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs";
  private static final String JOB = JOBS + "/mnist";

  @TempDir
  Path dir;

  private final List<ProgressEvent> events = new CopyOnWriteArrayList<>();
  private WatchingApiServer api;
  private KubernetesTrainingJob handle;

  @BeforeEach
  void start() {
    api = new WatchingApiServer(JOBS, this::other);
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(api.kubeconfig(dir, NS))
        .withTimings(TestJobs.FAST);
    handle = cluster.attach("kubeflow.org/v1", "PyTorchJob", "mnist", NS, events::add);
  }

  @AfterEach
  void stop() {
    api.close();
  }

  /** The job object at {@code version} in {@code phase} (Running or Succeeded). */
  static String job(String version, String phase) {
    String conditions = KubernetesJobHandleTest.condition("Created", "True", "Created", "")
        + switch (phase) {
          case "Running" -> "," + KubernetesJobHandleTest.condition("Running", "True",
              "PyTorchJobRunning", "");
          default -> "," + KubernetesJobHandleTest.condition("Running", "False",
              "PyTorchJobRunning", "") + "," + KubernetesJobHandleTest.condition("Succeeded",
              "True", "PyTorchJobSucceeded", "done");
        };
    return """
        {"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",
         "metadata":{"name":"mnist","namespace":"team","resourceVersion":"%s"},
         "spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1}}},
         "status":{"conditions":[%s]}}""".formatted(version, conditions).replace("\n", "");
  }

  static String list(String version, String... objects) {
    return "{\"kind\":\"PyTorchJobList\",\"metadata\":{\"resourceVersion\":\"" + version
        + "\"},\"items\":[" + String.join(",", objects) + "]}";
  }

  static String event(String type, String object) {
    return "{\"type\":\"" + type + "\",\"object\":" + object + "}";
  }

  static String bookmark(String version) {
    return event("BOOKMARK", "{\"kind\":\"PyTorchJob\",\"apiVersion\":\"kubeflow.org/v1\","
        + "\"metadata\":{\"resourceVersion\":\"" + version + "\"}}");
  }

  static String gone() {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
        + "\"too old resource version: 100 (300)\",\"reason\":\"Expired\",\"code\":410}";
  }

  /** Everything but lists and watches of the job collection: the job, no pods, no events. */
  private MockResponse other(RecordedRequest request) {
    String path = request.getUrl().encodedPath();
    if (path.equals(JOB)) {
      return WatchingApiServer.json(200, job("1", "Running"));
    }
    if (path.endsWith("/pods") || path.endsWith("/events")) {
      return WatchingApiServer.json(200, "{\"items\":[]}");
    }
    return WatchingApiServer.json(404, TestJobs.status(404, "NotFound", "no " + path, "{}"));
  }

  private List<JobPhase> phases() {
    return events.stream().filter(ProgressEvent.PhaseChanged.class::isInstance)
        .map(e -> ((ProgressEvent.PhaseChanged) e).current()).toList();
  }

  @Test
  void aStreamCutMidEventIsResumedFromTheLastBookmark() {
    api.list(list("100", job("100", "Running")))
        .watch(event("MODIFIED", job("101", "Running")), bookmark("103"),
            "{\"type\":\"MODIFIED\",\"object\":{\"apiVer") // the connection drops mid-event
        .watch(event("MODIFIED", job("105", "Succeeded")));

    JobStatus end = handle.waitForCompletion(Duration.ofSeconds(10));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    List<RecordedRequest> watches = api.watchRequests();
    assertThat(watches).hasSize(2);
    assertThat(watches.get(0).getUrl().queryParameter("resourceVersion")).isEqualTo("100");
    assertThat(watches.get(0).getUrl().queryParameter("fieldSelector"))
        .isEqualTo("metadata.name=mnist");
    assertThat(watches.get(0).getUrl().queryParameter("allowWatchBookmarks")).isEqualTo("true");
    assertThat(watches.get(1).getUrl().queryParameter("resourceVersion")).isEqualTo("103");
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
    assertThat(listRequests()).isEqualTo(1);
  }

  @Test
  void a410ResponseToTheWatchIsFollowedByARelistThatCarriesTheTerminalCondition() {
    api.list(list("100", job("100", "Running")))
        .list(list("300", job("300", "Succeeded")))
        .watchError(410, gone());

    JobStatus end = handle.waitForCompletion(Duration.ofSeconds(10));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(listRequests()).isEqualTo(2);
    assertThat(api.watchRequests()).hasSize(1);
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
  }

  private long listRequests() {
    return api.requests().stream().filter(r -> r.getUrl().encodedPath().equals(JOBS)
        && r.getUrl().queryParameter("watch") == null).count();
  }
}

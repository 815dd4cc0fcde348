package dev.fairing4j.deploy.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.OnTimeout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * waitForCompletion driven by a live watch: resumed after a dropped stream from the last
 * resourceVersion, relisted after 410 Gone, terminal conditions seen in a relist, failures and
 * timeouts with their delete / suspend actions, and the polling fallback when watches are refused.
 */
@Timeout(20)
class WatchedWaitTest {
  private static final String NS = "team";
  private static final String JOBS = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs";
  private static final String JOB = JOBS + "/mnist";

  @TempDir
  Path dir;

  private final List<ProgressEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicReference<String> stored = new AtomicReference<>(job("1", "Running"));
  private final AtomicBoolean deleted = new AtomicBoolean();
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

  /** The job object at {@code version} in {@code phase} (Running, Succeeded or Failed). */
  static String job(String version, String phase) {
    String conditions = KubernetesJobHandleTest.condition("Created", "True", "Created", "")
        + switch (phase) {
          case "Running" -> "," + KubernetesJobHandleTest.condition("Running", "True",
              "PyTorchJobRunning", "");
          case "Succeeded" -> "," + KubernetesJobHandleTest.condition("Running", "False",
              "PyTorchJobRunning", "") + "," + KubernetesJobHandleTest.condition("Succeeded",
              "True", "PyTorchJobSucceeded", "done");
          default -> "," + KubernetesJobHandleTest.condition("Failed", "True",
              "PyTorchJobFailed", "PyTorchJob mnist is failed because 1 Master replica(s)"
                  + " failed.");
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

  /** Everything but lists and watches of the job collection. */
  private MockResponse other(RecordedRequest request) {
    String path = request.getUrl().encodedPath();
    String method = request.getMethod();
    if (path.equals(JOB)) {
      if (method.equals("DELETE")) {
        deleted.set(true);
        return WatchingApiServer.json(200, stored.get());
      }
      if (method.equals("PATCH")) {
        return WatchingApiServer.json(200, stored.get());
      }
      return deleted.get() ? WatchingApiServer.json(404, TestJobs.status(404, "NotFound",
          "pytorchjobs.kubeflow.org \"mnist\" not found",
          "{\"name\":\"mnist\",\"group\":\"kubeflow.org\",\"kind\":\"pytorchjobs\"}"))
          : WatchingApiServer.json(200, stored.get());
    }
    if (method.equals("GET") && (path.endsWith("/pods") || path.endsWith("/events"))) {
      return WatchingApiServer.json(200, "{\"items\":[]}");
    }
    return WatchingApiServer.json(404, TestJobs.status(404, "NotFound", "no " + path, "{}"));
  }

  private List<JobPhase> phases() {
    return events.stream().filter(ProgressEvent.PhaseChanged.class::isInstance)
        .map(e -> ((ProgressEvent.PhaseChanged) e).current()).toList();
  }

  @Test
  void aDroppedStreamIsResumedFromTheLastResourceVersion() {
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
  void a410GoneIsFollowedByARelistThatCarriesTheTerminalCondition() {
    api.list(list("100", job("100", "Running")))
        .list(list("300", job("300", "Succeeded")))
        .watchError(410, gone());

    JobStatus end = handle.waitForCompletion(Duration.ofSeconds(10));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(listRequests()).isEqualTo(2);
    assertThat(api.watchRequests()).hasSize(1);
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
  }

  @Test
  void anErrorEventWith410RelistsAndWatchesFromTheNewVersion() {
    api.list(list("100", job("100", "Running")))
        .list(list("300", job("300", "Running")))
        .watch(event("ERROR", gone()))
        .watch(event("MODIFIED", job("301", "Succeeded")));

    JobStatus end = handle.waitForCompletion(Duration.ofSeconds(10));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    List<RecordedRequest> watches = api.watchRequests();
    assertThat(watches).hasSize(2);
    assertThat(watches.get(1).getUrl().queryParameter("resourceVersion")).isEqualTo("300");
    assertThat(listRequests()).isEqualTo(2);
  }

  @Test
  void aFailedJobThrowsWithTheOperatorsMessage() {
    api.list(list("100", job("100", "Running")))
        .watch(event("MODIFIED", job("101", "Failed")));

    assertThatThrownBy(() -> handle.waitForCompletion(Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(JobFailedException.class, e -> {
          assertThat(e.status().phase()).isEqualTo(JobPhase.FAILED);
          assertThat(e.getMessage()).contains("1 Master replica(s) failed");
        });
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.FAILED);
  }

  @Test
  void aTimeoutLeavesTheJobRunningByDefault() {
    api.list(list("100", job("100", "Running")));
    long start = System.nanoTime();

    assertThatThrownBy(() -> handle.waitForCompletion(Duration.ofMillis(600)))
        .isInstanceOfSatisfying(JobTimeoutException.class, e -> {
          assertThat(e.lastStatus().phase()).isEqualTo(JobPhase.RUNNING);
          assertThat(e.timeout()).isEqualTo(Duration.ofMillis(600));
        });

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    assertThat(api.requests()).noneMatch(r -> !r.getMethod().equals("GET"));
  }

  @Test
  void aTimeoutCanDeleteTheJob() {
    api.list(list("100", job("100", "Running")));

    assertThatThrownBy(() -> handle.waitForCompletion(Duration.ofMillis(600), OnTimeout.DELETE))
        .isInstanceOfSatisfying(JobTimeoutException.class,
            e -> assertThat(e.getMessage()).contains("deleted it"));

    assertThat(api.requests()).anySatisfy(r -> {
      assertThat(r.getMethod()).isEqualTo("DELETE");
      assertThat(r.getUrl().encodedPath()).isEqualTo(JOB);
      assertThat(r.getBody().utf8()).contains("\"propagationPolicy\":\"Foreground\"");
    });
  }

  @Test
  void aTimeoutCanSuspendTheJob() {
    api.list(list("100", job("100", "Running")));

    assertThatThrownBy(() -> handle.waitForCompletion(Duration.ofMillis(600), OnTimeout.SUSPEND))
        .isInstanceOfSatisfying(JobTimeoutException.class,
            e -> assertThat(e.getMessage()).contains("suspended it"));

    assertThat(api.requests()).anySatisfy(r -> {
      assertThat(r.getMethod()).isEqualTo("PATCH");
      assertThat(r.getUrl().encodedPath()).isEqualTo(JOB);
      assertThat(r.getHeaders().get("Content-Type")).startsWith("application/merge-patch+json");
      assertThat(r.getBody().utf8()).isEqualTo("{\"spec\":{\"runPolicy\":{\"suspend\":true}}}");
    });
    assertThat(deleted).isFalse();
  }

  @Test
  void aRefusedWatchFallsBackToPolling() {
    api.list(list("100", job("100", "Running")))
        .watchError(400, TestJobs.status(400, "BadRequest", "watch is not supported", "{}"));
    stored.set(job("102", "Succeeded"));

    JobStatus end = handle.waitForCompletion(Duration.ofSeconds(10));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(api.requests()).anySatisfy(r -> assertThat(r.getUrl().encodedPath())
        .isEqualTo(JOB));
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
  }

  private long listRequests() {
    return api.requests().stream().filter(r -> r.getUrl().encodedPath().equals(JOBS)
        && r.getUrl().queryParameter("watch") == null).count();
  }
}

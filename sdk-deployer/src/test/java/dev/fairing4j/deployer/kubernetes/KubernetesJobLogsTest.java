package dev.fairing4j.deployer.kubernetes;

import static dev.fairing4j.deployer.kubernetes.KubernetesJobHandleTest.condition;
import static dev.fairing4j.deployer.kubernetes.KubernetesJobHandleTest.operatorPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lines of every replica's log: snapshots prefixed by replica, narrowing by replica, tail and
 * since, and following without losing or repeating lines until the job ends. On fabric8's mock
 * with scripted log answers, because a real API server without a node serves no logs; the real
 * cluster suite covers logs. What the logs do against a real API server that has none to serve
 * (skipping unreadable pods, ending with the job, closing, a deleted pod) is in
 * {@link KubernetesJobLogsIT}.
 */
class KubernetesJobLogsTest {
  private static final String NS = "team";
  private static final String JOB = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs/mnist";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";
  private static final String MASTER_LOG = PODS + "/mnist-master-0/log?container=pytorch";
  private static final String WORKER_LOG = PODS + "/mnist-worker-0/log?container=pytorch";

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

  private static String line(String time, String text) {
    return "2024-05-01T" + time + "Z " + text + "\n";
  }

  private void pods(String masterPhase, String workerPhase) {
    mock.post(PODS, operatorPod("mnist", "master", 0, "{\"phase\":\"" + masterPhase + "\"}"));
    mock.post(PODS, operatorPod("mnist", "worker", 0, "{\"phase\":\"" + workerPhase + "\"}"));
  }

  private void jobStatus(String type) {
    mock.mergePatch(JOB + "/status", "{\"status\":{\"conditions\":null}}");
    mock.mergePatch(JOB + "/status", "{\"status\":{\"conditions\":["
        + condition(type, "True", "PyTorchJob" + type, "") + "]}}");
  }

  @Test
  void anotherContainerIsReadWhenAskedForAndAMissingOneIsRefusedWithTheNamesThereAre() {
    mock.post(PODS, operatorPod("mnist", "master", 0, "{\"phase\":\"Running\"}")
        .replace("\"containers\":[{\"name\":\"pytorch\",\"image\":\"" + TestJobs.IMAGE + "\"}]",
            "\"initContainers\":[{\"name\":\"fetch-data\",\"image\":\"busybox\"}],"
                + "\"containers\":[{\"name\":\"pytorch\",\"image\":\"" + TestJobs.IMAGE
                + "\"},{\"name\":\"metrics\",\"image\":\"exporter\"}]"));
    K8S.server().expect().get()
        .withPath(PODS + "/mnist-master-0/log?container=metrics&timestamps=true")
        .andReturn(200, line("12:00:00.100000000", "exporter up on :9400")).always();
    K8S.server().expect().get()
        .withPath(PODS + "/mnist-master-0/log?container=fetch-data&timestamps=true")
        .andReturn(200, line("12:00:00.000000000", "fetched 300 samples")).always();

    assertThat(job.logs().container("metrics").snapshot()).singleElement().satisfies(l -> {
      assertThat(l.container()).isEqualTo("metrics");
      assertThat(l.replica()).isEqualTo("master-0");
      assertThat(l.text()).isEqualTo("exporter up on :9400");
    });
    assertThat(job.logs().container("fetch-data").snapshot()).extracting(LogLine::text)
        .containsExactly("fetched 300 samples");
    assertThatThrownBy(() -> job.logs().container("metrcs").snapshot())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("container");
          assertThat(e).hasMessageContaining("no pod of PyTorchJob team/mnist has a container"
              + " named 'metrcs' (its pods have fetch-data, metrics, pytorch)");
        });
    assertThatThrownBy(() -> job.logs().container("metrcs").stream(l -> { }))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> job.logs().container("Not A Name"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("container");
  }

  @Test
  void aSnapshotHasEveryReplicaPrefixedAndSkipsPodsNotStartedYet() {
    pods("Succeeded", "Running");
    mock.post(PODS, operatorPod("mnist", "worker", 1, "{\"phase\":\"Pending\"}"));
    K8S.server().expect().get().withPath(MASTER_LOG + "&timestamps=true")
        .andReturn(200, line("12:00:00.100000000", "Train Epoch: 1 loss 2.30")
            + line("12:00:01.200000000", "Train Epoch: 2 loss 1.10"))
        .always();
    K8S.server().expect().get().withPath(WORKER_LOG + "&timestamps=true")
        .andReturn(200, line("12:00:00.300000000", "worker ready")).always();
    K8S.server().expect().get()
        .withPath(PODS + "/mnist-worker-1/log?container=pytorch&timestamps=true")
        .andReturn(400, TestJobs.status(400, "BadRequest", "container \"pytorch\" in pod"
            + " \"mnist-worker-1\" is waiting to start: ContainerCreating", "{}"))
        .always();

    List<LogLine> lines = job.logs().snapshot();

    assertThat(lines).extracting(LogLine::toString).containsExactly(
        "[master-0] Train Epoch: 1 loss 2.30", "[master-0] Train Epoch: 2 loss 1.10",
        "[worker-0] worker ready");
    assertThat(lines.get(0).timestamp())
        .contains(Instant.parse("2024-05-01T12:00:00.100000000Z"));
    assertThat(lines.get(0).container()).isEqualTo("pytorch");
    assertThat(job.logs().replica("worker").snapshot()).extracting(LogLine::replica)
        .containsExactly("worker-0");
    assertThat(job.logs().replica("Master-0").snapshot()).hasSize(2);
    assertThat(job.logs().replica("ps").snapshot()).isEmpty();
  }

  @Test
  void tailAndSinceNarrowTheRead() {
    pods("Succeeded", "Succeeded");
    K8S.server().expect().get().withPath(MASTER_LOG + "&tailLines=1&timestamps=true")
        .andReturn(200, line("12:00:01.800000000", "done")).always();
    K8S.server().expect().get().withPath(WORKER_LOG + "&tailLines=1&timestamps=true")
        .andReturn(200, line("12:00:01.700000000", "worker done")).always();
    // sinceTime has one-second precision: the server answers from 12:00:01, the rest is ours.
    K8S.server().expect().get()
        .withPath(MASTER_LOG + "&timestamps=true&sinceTime=2024-05-01T12%3A00%3A01Z")
        .andReturn(200, line("12:00:01.200000000", "too early") + line("12:00:01.800000000",
            "done")).always();

    assertThat(job.logs().tail(1).snapshot()).extracting(LogLine::toString)
        .containsExactly("[master-0] done", "[worker-0] worker done");
    assertThat(job.logs().replica("master-0").since(Instant.parse("2024-05-01T12:00:01.500Z"))
        .snapshot()).extracting(LogLine::text).containsExactly("done");
    assertThatThrownBy(() -> job.logs().tail(-1)).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> job.logs().replica("worker 1"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("'worker-1'");
  }

  @Test
  void followingNeitherLosesNorRepeatsLinesAndEndsWithTheJob() {
    pods("Running", "Succeeded");
    jobStatus("Running");
    K8S.server().expect().get().withPath(MASTER_LOG + "&follow=true&timestamps=true")
        .andReturn(200, line("12:00:00.100000000", "one") + line("12:00:00.500000000", "two"))
        .always();
    // Resumed from the last line's second: the answer repeats what was delivered.
    K8S.server().expect().get()
        .withPath(MASTER_LOG + "&follow=true&timestamps=true&sinceTime=2024-05-01T12%3A00%3A00Z")
        .andReturn(200, line("12:00:00.100000000", "one") + line("12:00:00.500000000", "two")
            + line("12:00:01.200000000", "three"))
        .always();
    K8S.server().expect().get()
        .withPath(MASTER_LOG + "&follow=true&timestamps=true&sinceTime=2024-05-01T12%3A00%3A01Z")
        .andReturn(200, line("12:00:01.200000000", "three")).always();
    K8S.server().expect().get().withPath(WORKER_LOG + "&follow=true&timestamps=true")
        .andReturn(200, line("12:00:00.200000000", "worker finished")).always();
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      await(() -> seen.size() >= 4);
      assertThat(stream.isDone()).isFalse(); // the job still runs
      mock.mergePatch(PODS + "/mnist-master-0/status", "{\"status\":{\"phase\":\"Succeeded\"}}");
      jobStatus("Succeeded");

      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(seen.stream().filter(l -> l.startsWith("[master-0]")))
        .containsExactly("[master-0] one", "[master-0] two", "[master-0] three");
    assertThat(seen).containsOnlyOnce("[worker-0] worker finished").hasSize(4);

    // A clean-pod policy of All deletes the pods after the end, and the kubelet's logs with
    // them: what this handle followed is still read from it, narrowed as asked.
    mock.delete(PODS + "/mnist-master-0");
    mock.delete(PODS + "/mnist-worker-0");
    assertThat(job.logs().snapshot()).extracting(LogLine::toString).containsExactly(
        "[master-0] one", "[master-0] two", "[master-0] three", "[worker-0] worker finished");
    assertThat(job.logs().replica("master").tail(1).snapshot()).extracting(LogLine::text)
        .containsExactly("three");
    assertThat(job.logs().since(Instant.parse("2024-05-01T12:00:01Z")).snapshot())
        .extracting(LogLine::text).containsExactly("three");
    TrainingJob other = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST).attach("kubeflow.org/v1", "PyTorchJob", "mnist", NS,
            e -> { });
    assertThat(other.logs().snapshot()).as("only the handle that followed keeps lines")
        .isEmpty();
  }

  @Test
  void followingASidecarStreamsThatContainerOnlyAndEndsWithTheJob() {
    mock.post(PODS, operatorPod("mnist", "master", 0, "{\"phase\":\"Succeeded\"}")
        .replace("\"containers\":[{\"name\":\"pytorch\",\"image\":\"" + TestJobs.IMAGE + "\"}]",
            "\"containers\":[{\"name\":\"pytorch\",\"image\":\"" + TestJobs.IMAGE
                + "\"},{\"name\":\"metrics\",\"image\":\"exporter\"}]"));
    jobStatus("Succeeded");
    K8S.server().expect().get()
        .withPath(PODS + "/mnist-master-0/log?container=metrics&follow=true&timestamps=true")
        .andReturn(200, line("12:00:00.100000000", "exported 3 samples")).always();
    K8S.server().expect().get().withPath(MASTER_LOG + "&follow=true&timestamps=true")
        .andReturn(200, line("12:00:00.100000000", "training line")).always();
    List<LogLine> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().container("metrics").stream(seen::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(seen).singleElement().satisfies(l -> {
      assertThat(l.container()).isEqualTo("metrics");
      assertThat(l.text()).isEqualTo("exported 3 samples");
    });
  }

  private static void await(java.util.function.BooleanSupplier condition) {
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

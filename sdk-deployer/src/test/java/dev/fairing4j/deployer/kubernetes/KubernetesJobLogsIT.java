package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What reading and following a job's logs does against a real API server that serves no log
 * lines (it has no node: a pod never scheduled is answered 204, one bound to a node that is gone
 * 404), the test playing the operator and the kubelet ({@link PlayedOperator}): snapshots skip
 * what cannot be read, a follow ends with the job, closing stops it at once, and a pod deleted
 * while followed ends its log with a note. The lines themselves (prefixes, tail, since, no loss
 * or repetition) are checked on the mock in {@link KubernetesJobLogsTest}, because a real API
 * server without a node serves no logs; the real cluster suite covers logs.
 */
@Timeout(120)
class KubernetesJobLogsIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared();

  private PlayedOperator operator;
  private TrainingJob job;

  @BeforeEach
  void submit() {
    operator = new PlayedOperator(K8S.server(), K8S.namespace());
    job = Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(TestJobs.FAST)
        .submit(TestJobs.pyTorchJob("mnist", K8S.namespace()), BuildContext.empty(),
            SubmitOptions.DEFAULT, e -> { });
  }

  private void runningPods() {
    operator.pyTorchPod("mnist", "master", 0, "{\"phase\":\"Running\"}");
    operator.pyTorchPod("mnist", "worker", 0, "{\"phase\":\"Running\"}");
    operator.pyTorchPhase("mnist", "Running");
  }

  private List<AuditLog.Request> logReads(String pod) {
    return K8S.requests().stream()
        .filter(r -> r.path().equals(operator.pods() + "/" + pod + "/log")).toList();
  }

  @Test
  void aSnapshotSkipsPodsWhoseLogCannotBeRead() {
    operator.pyTorchPod("mnist", "master", 0, "{\"phase\":\"Pending\"}");
    operator.operatorPod("PyTorchJob", "mnist", "worker", 0, "pytorch",
        Optional.of("removed-node"), "{\"phase\":\"Running\"}");

    assertThat(job.logs().snapshot()).isEmpty();
    assertThat(job.logs().replica("worker").snapshot()).isEmpty();
    assertThat(job.logs().replica("ps").snapshot()).isEmpty();

    assertThat(logReads("mnist-master-0")).extracting(AuditLog.Request::uri)
        .first().asString().endsWith("/log?container=pytorch&timestamps=true");
    assertThat(logReads("mnist-master-0")).extracting(AuditLog.Request::status)
        .containsOnly(204);
    assertThat(logReads("mnist-worker-0")).extracting(AuditLog.Request::status)
        .containsOnly(404);
  }

  @Test
  void followingEndsWithTheJob() {
    runningPods();
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().follow(seen::add)) {
      PlayedOperator.await("both replicas followed", () ->
          !logReads("mnist-master-0").isEmpty() && !logReads("mnist-worker-0").isEmpty());
      assertThat(stream.isDone()).isFalse(); // the job still runs
      operator.podStatus("mnist-master-0", "{\"phase\":\"Succeeded\"}");
      operator.podStatus("mnist-worker-0", "{\"phase\":\"Succeeded\"}");
      operator.pyTorchPhase("mnist", "Succeeded");

      assertThat(stream.awaitEnd(Duration.ofSeconds(30))).isTrue();
    }
    assertThat(seen).isEmpty();
    assertThat(logReads("mnist-master-0")).allSatisfy(r -> assertThat(r.uri())
        .contains("follow=true").contains("timestamps=true"));
  }

  @Test
  void closingStopsFollowingAtOnce() {
    runningPods();

    LogStream stream = job.logs().stream(line -> { });
    assertThat(stream.awaitEnd(Duration.ofMillis(200))).isFalse();
    stream.close();
    stream.close(); // twice is fine

    assertThat(stream.isDone()).isTrue();
    assertThat(stream.awaitEnd(Duration.ZERO)).isTrue();
  }

  @Test
  void aPodDeletedWhileFollowedEndsItsLogWithANote() {
    runningPods();
    List<String> seen = new CopyOnWriteArrayList<>();

    try (LogStream stream = job.logs().replica("worker").follow(seen::add)) {
      PlayedOperator.await("the worker followed", () -> !logReads("mnist-worker-0").isEmpty());
      operator.delete(operator.pods() + "/mnist-worker-0");

      PlayedOperator.await("the note", () -> !seen.isEmpty());
      assertThat(stream.isDone()).isFalse(); // the job still runs and may get a new pod
    }
    assertThat(seen).containsExactly(
        "[worker-0] (pod mnist-worker-0 was deleted; its log ends here)");
  }
}

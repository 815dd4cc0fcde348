package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.LastLines;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The part of the job handle a real API server cannot show: the failed replica's last log lines
 * in the {@link JobFailedException} a failed wait throws. A real API server without a node
 * serves no logs; the real cluster suite covers logs. Everything else about the handle (phases,
 * pods, batch Jobs, waits, deletion) is checked against a real API server in
 * {@link KubernetesJobHandleIT}. The {@link #condition} and {@link #operatorPod} builders serve
 * the mock-based tests of this package.
 */
class KubernetesJobHandleTest {
  private static final String NS = "team";
  private static final String JOB = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs/mnist";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";

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

  /** Replaces the job's status in one request (the mock appends lists on merge patches). */
  private void status(String json) {
    mock.jsonPatch(JOB + "/status", "[{\"op\":\"add\",\"path\":\"/status\",\"value\":"
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
  void aFailedWaitCarriesTheLastLogLinesOfTheFailedReplica() {
    mock.post(PODS, operatorPod("mnist", "master", 0, """
        {"phase":"Failed","containerStatuses":[{"name":"pytorch","restartCount":0,
          "state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}
        """));
    mock.post(PODS, operatorPod("mnist", "worker", 0, "{\"phase\":\"Running\"}"));
    K8S.server().expect().get()
        .withPath(PODS + "/mnist-master-0/log?container=pytorch&tailLines=" + LastLines.READ)
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
}

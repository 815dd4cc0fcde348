package dev.fairing4j.deployer.kubernetes;

import static dev.fairing4j.deployer.kubernetes.KubernetesJobHandleTest.operatorPod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The part of a job's diagnosis that needs a container's log: a CrashLoopBackOff pod shows the
 * last lines its previous container wrote, and the kubelet's answer for a removed container is
 * not taken for one. A real API server without a node serves no logs; the
 * real cluster suite covers logs. The rest of the diagnosis (Unschedulable, image pulls, an
 * unreadable previous log, Warning events) runs against a real API server in
 * {@link JobDiagnosisIT}.
 */
class JobDiagnosisTest {
  private static final String NS = "team";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";
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

  @Test
  void aCrashLoopingPodShowsTheLastLinesOfItsPreviousContainer() {
    mock.post(PODS, operatorPod("mnist", "master", 0, """
        {"phase":"Running","containerStatuses":[{"name":"pytorch","restartCount":4,
          "state":{"waiting":{"reason":"CrashLoopBackOff",
            "message":"back-off 40s restarting failed container=pytorch"}},
          "lastState":{"terminated":{"exitCode":1,"reason":"Error"}}}]}
        """));
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
  void theKubeletsLogGoneAnswerIsNoLastLine() {
    // Seen on a real cluster: for a container it has removed the kubelet answers 200 with this
    // one line instead of the log; it is not what the container printed.
    mock.post(PODS, operatorPod("mnist", "master", 0, """
        {"phase":"Running","containerStatuses":[{"name":"pytorch","restartCount":1,
          "state":{"waiting":{"reason":"CrashLoopBackOff",
            "message":"back-off 40s restarting failed container=pytorch"}},
          "lastState":{"terminated":{"exitCode":1,"reason":"Error"}}}]}
        """));
    K8S.server().expect().get().withPath(PODS + "/mnist-master-0" + PREVIOUS_LOG)
        .andReturn(200, "unable to retrieve container logs for containerd://0123abcd")
        .always();

    PodInfo master = job.status().pods().get(0);

    // Exactly the kubelet's waiting message: no "last lines" were appended.
    assertThat(master.message()).contains("back-off 40s restarting failed container=pytorch");
    assertThat(master.message().orElseThrow()).doesNotContain("last lines");
  }
}

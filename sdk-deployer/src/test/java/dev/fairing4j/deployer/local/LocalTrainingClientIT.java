package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.monitor.JobGpus;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Arena's verbs on the local cluster: a client built on another {@code LocalCluster} value (as a
 * restarted notebook kernel would) lists, describes, measures and follows a job to its end.
 */
@Timeout(90)
class LocalTrainingClientIT extends LocalClusterTestBase {
  /**
   * A namespace the local cluster does not have is refused as an API server refuses it, before
   * anything runs, with the name it probably meant; a declared one, or one that holds jobs,
   * is there.
   */
  @Test
  void aMisspelledNamespaceIsRefusedAsKubernetesRefusesIt() {
    LocalCluster cluster = LocalCluster.create().stateDir(state).volumesDir(volumes)
        .namespaces("kubeflow");
    dev.fairing4j.core.Pipeline pipeline = dev.fairing4j.core.Fairing.pipeline()
        .progress(ProgressListener.NONE).preprocessor(() -> BuildContext.empty()
            .withFile("/app/main.py", ContextFile.ofText("print(1)\n"))
            .withCommand(List.of("python", "/app/main.py")));

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> pipeline.deployer(
        Deployers.batchJob("typo").namespace("kubeflw").on(cluster)).run())
        .isInstanceOfSatisfying(dev.fairing4j.core.InvalidInputException.class, e -> assertThat(
            e.field()).isEqualTo("namespace"))
        .hasMessageContaining("'kubeflw' does not exist on this machine's cluster (it has"
            + " default, kubeflow)")
        .hasMessageContaining("did you mean kubeflow?")
        .hasMessageContaining(".namespaces(\"kubeflw\")");
    assertThat(cluster.listAll()).as("nothing created").isEmpty();
    dev.fairing4j.core.TrainingJob ok = pipeline.deployer(Deployers.batchJob("ok")
        .namespace("kubeflow").on(cluster)).run();
    assertThat(ok.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    try (dev.fairing4j.core.LogStream stream = ok.logs().follow(line -> { })) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
      assertThat(stream.toString()).as("what a notebook cell shows").matches(
          "log stream of ok \\(\\S+-0; ended\\)");
    }
    // Once it holds a job, another value of the cluster (a restarted kernel) finds it too.
    assertThat(pipeline.deployer(Deployers.batchJob("again").namespace("kubeflow")
        .on(LocalCluster.create().stateDir(state).volumesDir(volumes))).run()
        .waitForCompletion(Duration.ofSeconds(30)).phase()).isEqualTo(JobPhase.SUCCEEDED);
    cluster.listAll().forEach(dev.fairing4j.core.TrainingJob::delete);
  }

  @Test
  void aClientListsDescribesMeasuresAndAttachesToLocalJobs() throws Exception {
    String script = String.join("\n",
        "import os, time",
        "print('waiting for go', flush=True)",
        "end = time.time() + 30",
        "while not os.path.exists('/data/go') and time.time() < end:",
        "    time.sleep(0.05)",
        "");
    Map<String, Object> container = Manifests.container("pytorch",
        List.of("python", "/app/main.py"), Map.of(), 23456, "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("data", "/data")));
    container.put("resources", Map.of("limits", Map.of("nvidia.com/gpu", 1)));
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/main.py"));
    LocalCluster starter = LocalCluster.create().stateDir(state).volumesDir(volumes)
        .ignoreGpuRequests().namespaces("kubeflow");
    starter.submit(Manifests.pyTorchJob("client-job", 1, container, "Never", Map.of(),
        List.of(Manifests.pvcVolume("data", "client-data")), null), context,
        SubmitOptions.DEFAULT, ProgressListener.NONE);

    TrainingClient client = TrainingClient.connect(
        LocalCluster.create().stateDir(state).volumesDir(volumes));
    awaitRunning(client, 2);

    assertThat(client.list().jobs()).singleElement().satisfies(job -> {
      assertThat(job.name()).isEqualTo("client-job");
      assertThat(job.trainer()).isEqualTo("PyTorchJob");
      assertThat(job.status()).isEqualTo(JobPhase.RUNNING);
    });
    assertThat(client.list().toString()).startsWith("NAME").contains("client-job", "Running");
    assertThat(client.get("client-job").instances()).extracting(PodInfo::name)
        .containsExactlyInAnyOrder("client-job-master-0", "client-job-worker-0");
    JobGpus gpus = client.topJobs().jobs().get(0);
    assertThat(gpus.requested()).isEqualTo(2);
    assertThat(gpus.allocated()).isEqualTo(2);
    assertThat(client.topNodes().nodes()).singleElement()
        .satisfies(node -> assertThat(node.allocated()).isEqualTo(2));
    assertThat(client.inNamespace("other").list().jobs()).isEmpty();
    assertThat(client.inNamespace("other").list().toString())
        .startsWith("no training jobs in namespace other (every namespace: client.listAll()");

    // The README's job runs in namespace kubeflow: list() says it shows default, listAll()
    // shows both, kubectl get -A style.
    Deployers.batchJob("kf-job").namespace("kubeflow").on(starter).asDeployer()
        .deploy(BuildContext.empty().withFile("/app/main.py", ContextFile.ofText("print(1)\n"))
            .withCommand(List.of("python", "/app/main.py")), Optional.empty(),
            ProgressListener.NONE).waitForCompletion(Duration.ofSeconds(30));
    assertThat(client.list().toString()).contains("namespace default").doesNotContain("kf-job");
    assertThat(client.listAll().jobs()).extracting(j -> j.namespace() + "/" + j.name())
        .containsExactly("default/client-job", "kubeflow/kf-job");
    assertThat(client.listAll().toString()).startsWith("NAMESPACE  NAME")
        .contains("kubeflow   kf-job").endsWith("all namespaces");

    Files.createFile(volumes.resolve("client-data/go"));
    assertThat(client.attach("client-job").waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    assertThat(client.topJobs().jobs().get(0).allocated()).isZero();
  }

  private static void awaitRunning(TrainingClient client, int pods) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      long running = client.get("client-job").instances().stream()
          .filter(pod -> pod.phase().equals("Running")).count();
      if (running == pods) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the job's pods did not all start: " + client.get("client-job"));
  }
}

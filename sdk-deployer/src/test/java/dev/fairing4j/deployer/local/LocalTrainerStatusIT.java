package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.MetricPoint;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Trainer's status server on the local cluster: a TrainJob's script posts its progress as
 * the Kubeflow SDK's {@code update_trainjob_status} does (requests, the bearer token file, the CA
 * file, {@code {"trainerStatus": ..}}) and {@code metrics()} shows each report as the source
 * {@code trainer}, as the Kubernetes path shows {@code status.trainerStatus}; the server answers
 * what the plugin's server answers to bad requests, keeps nothing it refused, ends with the job,
 * and every JVM reads the reports afterwards.
 */
@Timeout(240)
class LocalTrainerStatusIT extends LocalClusterTestBase {
  /**
   * What the Kubeflow SDK's helper does, minus its 5 s throttle (so a short test can post every
   * epoch): the token read from its file, requests with the CA file, values as strings.
   */
  private static final String SDK_HELPER = """
      import os
      from datetime import datetime, timezone
      import requests

      def update_trainjob_status(progress_percent=None, estimated_remaining_seconds=None,
                                 metrics=None):
          url = os.environ.get("KUBEFLOW_TRAINER_SERVER_URL")
          if not url:
              return None
          with open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"]) as f:
              token = f.read().strip()
          status = {"lastUpdatedTime": datetime.now(timezone.utc).isoformat()}
          if progress_percent is not None:
              status["progressPercentage"] = max(0, min(100, progress_percent))
          if estimated_remaining_seconds is not None:
              status["estimatedRemainingSeconds"] = max(0, estimated_remaining_seconds)
          if metrics:
              status["metrics"] = [{"name": str(k), "value": str(v)} for k, v in metrics.items()]
          response = requests.post(url, json={"trainerStatus": status},
                                   headers={"Authorization": f"Bearer {token}",
                                            "Content-Type": "application/json"},
                                   verify=os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"],
                                   timeout=5)
          return response.status_code
      """;

  /** Two nodes train together through torchrun; rank 0 reports every epoch, as HF's does. */
  private static final String TRAIN = SDK_HELPER + """
      import logging, sys
      import torch
      import torch.distributed as dist
      import torch.nn as nn
      logging.basicConfig(level=logging.INFO, stream=sys.stderr)
      dist.init_process_group("gloo")
      rank = dist.get_rank()
      torch.manual_seed(0)
      model = nn.parallel.DistributedDataParallel(nn.Linear(4, 1))
      opt = torch.optim.SGD(model.parameters(), lr=0.05)
      x = torch.randn(64, 4) + rank
      y = x.sum(dim=1, keepdim=True)
      epochs = 4
      if rank == 0:
          print("posted", update_trainjob_status(progress_percent=0), flush=True)
      for epoch in range(epochs):
          opt.zero_grad()
          loss = ((model(x) - y) ** 2).mean()
          loss.backward()
          opt.step()
          if rank == 0:
              value = loss.item()
              logging.info("epoch=%d loss=%s", epoch, value)
              code = update_trainjob_status(progress_percent=int((epoch + 1) / epochs * 100),
                                            estimated_remaining_seconds=epochs - epoch - 1,
                                            metrics={"loss": value, "note": "n/a"})
              print("posted", code, flush=True)
      dist.barrier()
      dist.destroy_process_group()
      """;

  /** Every mistake a client makes, then one good report; prints each answer. */
  private static final String MISTAKES = SDK_HELPER + """
      import json, urllib.parse
      url = os.environ["KUBEFLOW_TRAINER_SERVER_URL"]
      ca = os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"]
      token = open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"]).read().strip()
      now = datetime.now(timezone.utc).isoformat()
      good = {"trainerStatus": {"progressPercentage": 10, "lastUpdatedTime": now}}
      auth = {"Authorization": f"Bearer {token}"}
      def show(name, response):
          body = response.json()
          print("ANSWER", name, response.status_code, body.get("message", ""), flush=True)
      show("no-token", requests.post(url, json=good, verify=ca))
      show("wrong-token", requests.post(url, json=good, verify=ca,
                                        headers={"Authorization": "Bearer x" + token[1:]}))
      show("other-job", requests.post(url.replace("/trainjobs/tsbad/", "/trainjobs/other/"),
                                      json=good, verify=ca, headers=auth))
      show("get", requests.get(url, verify=ca, headers=auth))
      show("other-path", requests.post(url.replace("/status", "/logs"), json=good, verify=ca,
                                       headers=auth))
      show("progress-150", requests.post(url, verify=ca, headers=auth, json={
          "trainerStatus": {"progressPercentage": 150, "lastUpdatedTime": now}}))
      show("no-time", requests.post(url, verify=ca, headers=auth, json={
          "trainerStatus": {"progressPercentage": 20}}))
      show("number-value", requests.post(url, verify=ca, headers=auth, json={
          "trainerStatus": {"metrics": [{"name": "loss", "value": 0.5}], "lastUpdatedTime": now}}))
      show("not-json", requests.post(url, verify=ca, headers=auth, data=b"{oops"))
      show("too-large", requests.post(url, verify=ca, headers=auth, data=b" " * 70000))
      show("nothing", requests.post(url, verify=ca, headers=auth, json={}))
      print("posted", update_trainjob_status(progress_percent=30, metrics={"loss": 0.25}),
            flush=True)
      """;

  @BeforeAll
  static void torchAndRequests() {
    Tools.requirePythonModule(Tools.torchPython(), "requests", "python3-requests");
  }

  @Test
  void aScriptPostingAsTheKubeflowSdkDoesShowsItsReportsInMetricsBesideTheLogs() {
    TrainingJob job = Deployers.trainJob("tsddp").numNodes(2).on(cluster()).asDeployer()
        .deploy(context("/app/train.py", TRAIN), Optional.empty(), ProgressListener.NONE);
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(120));

    assertThat(end.phase()).as(text(job)).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(job.logs().snapshot()).extracting(LogLine::text).filteredOn(t -> t.startsWith(
        "posted")).containsExactly("posted 200", "posted 200", "posted 200", "posted 200",
        "posted 200");
    JobMetrics metrics = job.metrics();
    assertThat(metrics.replicas()).contains("node-0", "trainer");
    assertThat(values(metrics.series("trainer", "progress")))
        .containsExactly(0.0, 25.0, 50.0, 75.0, 100.0);
    // The same loss the script logged, value for value: str(float) is exact.
    assertThat(values(metrics.series("trainer", "loss")))
        .hasSize(4).isEqualTo(values(metrics.series("node-0", "loss")));
    // A value that is no number is no point, as on Kubernetes.
    assertThat(metrics.series("trainer", "note")).isEmpty();
    assertThat(metrics.latest("trainer", "progress")).contains(100.0);

    // Another JVM's handle reads the same reports after the job ended.
    TrainingJob attached = cluster().attach("default", "tsddp").orElseThrow();
    assertThat(values(attached.metrics().series("trainer", "loss")))
        .isEqualTo(values(metrics.series("trainer", "loss")));
    assertThat(cluster().listAll()).extracting(TrainingJob::name).contains("tsddp");
  }

  @Test
  void theServerAnswersWhatThePluginsServerAnswersAndKeepsOnlyTheGoodReport() {
    TrainingJob job = Deployers.trainJob("tsbad").on(cluster()).torchrun(false).asDeployer()
        .deploy(context("/app/mistakes.py", MISTAKES), Optional.empty(), ProgressListener.NONE);
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(60));

    assertThat(end.phase()).as(text(job)).isEqualTo(JobPhase.SUCCEEDED);
    Map<String, String> answers = job.logs().snapshot().stream().map(LogLine::text)
        .filter(t -> t.startsWith("ANSWER ")).map(t -> t.substring(7).split(" ", 2))
        .collect(Collectors.toMap(a -> a[0], a -> a[1]));
    assertThat(answers).containsOnly(
        Map.entry("no-token", "403 Forbidden"),
        Map.entry("wrong-token", "403 Forbidden"),
        Map.entry("other-job", "403 Forbidden"),
        Map.entry("get", "405 Method not allowed"),
        Map.entry("other-path", "404 Not found"),
        Map.entry("progress-150", "422 TrainJob.trainer.kubeflow.org is invalid:"
            + " status.trainerStatus.progressPercentage: Invalid value: 150:"
            + " status.trainerStatus.progressPercentage in body should be less than or equal to"
            + " 100"),
        Map.entry("no-time", "422 TrainJob.trainer.kubeflow.org is invalid: status.trainerStatus:"
            + " Invalid value: \"object\": lastUpdatedTime is required when trainerStatus is"
            + " present"),
        Map.entry("number-value", "422 Invalid payload"),
        Map.entry("not-json", "422 Invalid payload"),
        Map.entry("too-large", "413 Payload too large"),
        Map.entry("nothing", "200 "));
    assertThat(job.logs().snapshot()).extracting(LogLine::text).contains("posted 200");
    JobMetrics metrics = job.metrics();
    assertThat(values(metrics.series("trainer", "progress"))).containsExactly(30.0);
    assertThat(values(metrics.series("trainer", "loss"))).containsExactly(0.25);
  }

  @Test
  void theServerListensOnTheLoopbackOnlyWhileTheJobRunsAndAJobThatPostsNothingKeepsItsLogMetrics()
      throws Exception {
    String script = """
        import os, time
        print("URL", os.environ["KUBEFLOW_TRAINER_SERVER_URL"], flush=True)
        print("epoch=1 loss=0.5", flush=True)
        time.sleep(1.5)
        """;
    TrainingJob job = Deployers.trainJob("tsquiet").on(cluster().tiedToJvm()).torchrun(false)
        .asDeployer().deploy(context("/app/quiet.py", script), Optional.empty(),
            ProgressListener.NONE);
    URI url = URI.create(awaitLine(job, "URL ").substring(4));
    assertThat(url.getHost()).isEqualTo("127.0.0.1");
    try (Socket open = new Socket(InetAddress.getLoopbackAddress(), url.getPort())) {
      assertThat(open.isConnected()).isTrue();
    }
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(60));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    // The supervisor lets go of the job once its last process is reaped, a moment after the
    // phase; it closes the server then.
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (listening(url.getPort()) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(listening(url.getPort())).as("nothing listens once the job ended").isFalse();
    JobMetrics metrics = job.metrics();
    assertThat(metrics.replicas()).containsExactly("node-0");
    assertThat(values(metrics.series("node-0", "loss"))).containsExactly(0.5);
  }

  @Test
  void withoutASandboxTheFilesAreNamedWhereTheyLieOnTheHost() {
    String script = SDK_HELPER + """
        print("CA", os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"], flush=True)
        print("posted", update_trainjob_status(progress_percent=60, metrics={"loss": 0.125}),
              flush=True)
        """;
    TrainingJob job = Deployers.trainJob("tsopen").on(cluster().withoutSandbox()).torchrun(false)
        .asDeployer().deploy(context("/app/open.py", script), Optional.empty(),
            ProgressListener.NONE);
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(60));

    assertThat(end.phase()).as(text(job)).isEqualTo(JobPhase.SUCCEEDED);
    List<String> lines = job.logs().snapshot().stream().map(LogLine::text).toList();
    assertThat(lines).contains("posted 200", "CA " + state.toAbsolutePath().normalize()
        .resolve("jobs/default/tsopen/trainer-status/ca.crt"));
    assertThat(job.metrics().latest("trainer", "loss")).contains(0.125);
  }

  private static boolean listening(int port) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return true;
    } catch (ConnectException e) {
      return false;
    }
  }

  private static String awaitLine(TrainingJob job, String prefix) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < end) {
      Optional<String> line = job.logs().snapshot().stream().map(LogLine::text)
          .filter(t -> t.startsWith(prefix)).findFirst();
      if (line.isPresent()) {
        return line.get();
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no line starting with " + prefix + ":\n" + text(job));
  }

  private static List<Double> values(List<MetricPoint> points) {
    return points.stream().map(MetricPoint::value).toList();
  }

  private static String text(TrainingJob job) {
    return job.logs().snapshot().stream().map(l -> "[" + l.replica() + "] " + l.text())
        .collect(Collectors.joining("\n"));
  }

  private LocalCluster cluster() {
    return LocalCluster.create().stateDir(state).volumesDir(volumes);
  }

  private static BuildContext context(String file, String script) {
    return BuildContext.empty().withFile(file, ContextFile.ofText(script))
        .withCommand(List.of("python", "-u", file));
  }
}

package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.EndpointStatus;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.OnTimeout;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.PredictionException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.local.PodmanCluster;
import dev.fairing4j.deployer.tuning.Experiment;
import dev.fairing4j.deployer.tuning.ExperimentPhase;
import dev.fairing4j.deployer.tuning.ExperimentResults;
import dev.fairing4j.deployer.tuning.ExperimentRun;
import dev.fairing4j.deployer.tuning.Objective;
import dev.fairing4j.deployer.tuning.Search;
import dev.fairing4j.deployer.tuning.Trial;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Clusters.podman()} runs the image the real builder made, from a small python base with
 * nothing but the host's interpreter, pushed to a real registry: both replicas get the operator's
 * environment, their output is the job's logs, their exit decides the status, and no container is
 * left once a job ends or is deleted.
 */
class PodmanClusterIT {
  @RegisterExtension static final RegistryExtension REGISTRY = RegistryExtension.plain();

  /** Prints what the operator injected, writes to the claim, then exits, fails or sleeps. */
  private static final String SCRIPT = """
      import os, signal, socket, sys, time
      for key in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "PYTHONUNBUFFERED"):
          print(f"{key}={os.environ.get(key)}")
      print(f"HOSTNAME={socket.gethostname()}")
      # the image's own file system, not the host's: the base holds no /etc/os-release
      print(f"HOST_FILES={os.path.exists('/etc/os-release')}")
      print(f"SCRIPT={os.path.abspath(__file__)}")
      with open(f"/opt/out/rank-{os.environ['RANK']}.txt", "w") as f:
          f.write(socket.gethostname())
      # The job ends when the Master does (the operator then stops Workers): on a loaded machine a
      # Worker's container can start late, so the Master waits until every rank has reported.
      if os.environ["RANK"] == "0":
          deadline = time.time() + 30
          others = [f"/opt/out/rank-{r}.txt" for r in range(1, int(os.environ["WORLD_SIZE"]))]
          while time.time() < deadline and not all(os.path.exists(p) for p in others):
              time.sleep(0.05)
          time.sleep(0.5)
      arg = sys.argv[1] if len(sys.argv) > 1 else "--exit=0"
      if arg == "--sleep":
          # as PID 1 of its container, python ignores SIGTERM unless it handles it
          signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
          print("sleeping", flush=True)
          time.sleep(120)
      sys.exit(int(arg.split("=")[1]))
      """;

  private static String base;

  @TempDir static Path scripts;
  @TempDir Path state;
  @TempDir Path volumes;

  private PodmanCluster cluster;

  @BeforeAll
  static void baseImage() throws IOException {
    Tools.require("podman", "podman");
    Tools.require("runc", "runc");
    Tools.require("buildah", "buildah");
    base = PythonBaseImage.pushTo(REGISTRY.hostPort() + "/base");
    Files.writeString(scripts.resolve("envprint.py"), SCRIPT);
    // A run that was killed (or failed before its cleanup) can leave this class's containers
    // behind; they would be miscounted as this run's.
    List<String> leftovers = containerNames();
    if (!leftovers.isEmpty()) {
      List<String> remove = new java.util.ArrayList<>(List.of(
          Tools.require("podman", "podman").toString(), "rm", "--force"));
      remove.addAll(leftovers);
      PythonBaseImage.run(remove);
    }
  }

  @BeforeEach
  void cluster() {
    cluster = Clusters.podman().stateDir(state).volumesDir(volumes);
  }

  @AfterEach
  void noContainerIsLeft() throws IOException {
    assertThat(containers()).isEmpty();
  }

  @Test
  void bothReplicasRunTheBuiltImageWithTheOperatorsEnvironment() throws IOException {
    List<String> lines = new CopyOnWriteArrayList<>();
    Instant submitted = Instant.now();
    TrainingJob job = pipeline(deployer("podjob")).run();
    JobStatus end;
    try (LogStream logs = job.logs().follow(lines::add)) {
      end = job.waitForCompletion(Duration.ofMinutes(2));
      assertThat(logs.awaitEnd(Duration.ofSeconds(30))).isTrue();
    }
    System.out.println("podjob: run() to Succeeded took "
        + Duration.between(submitted, Instant.now()).toMillis() + " ms");

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(lines).contains("[master-0] RANK=0", "[worker-0] RANK=1",
        "[master-0] WORLD_SIZE=2", "[worker-0] WORLD_SIZE=2",
        "[master-0] MASTER_ADDR=127.0.0.1", "[worker-0] MASTER_ADDR=127.0.0.1",
        "[master-0] PYTHONUNBUFFERED=1", "[worker-0] PYTHONUNBUFFERED=1",
        "[master-0] HOSTNAME=podjob-master-0", "[worker-0] HOSTNAME=podjob-worker-0",
        "[master-0] HOST_FILES=False", "[master-0] SCRIPT=/app/envprint.py");
    String masterPort = lines.stream().filter(l -> l.startsWith("[master-0] MASTER_PORT="))
        .findFirst().orElseThrow().substring("[master-0] MASTER_PORT=".length());
    assertThat(Integer.parseInt(masterPort)).isPositive();
    assertThat(lines).contains("[worker-0] MASTER_PORT=" + masterPort);
    assertThat(cluster.claimDir("podclaim").resolve("rank-0.txt")).hasContent("podjob-master-0");
    assertThat(cluster.claimDir("podclaim").resolve("rank-1.txt")).hasContent("podjob-worker-0");
    assertThat(containers()).isEmpty();

    assertThat(cluster.list("default")).extracting(TrainingJob::name).containsExactly("podjob");
    job.delete();
    assertThat(cluster.list("default")).isEmpty();
  }

  @Test
  void aTrainJobsNodesRunTheImageWithTheTorchPluginsEnvironment() throws IOException {
    Path script = Files.writeString(scripts.resolve("petprint.py"), """
        import os, socket
        for key in sorted(k for k in os.environ if k.startswith("PET_")):
            print(f"{key}={os.environ[key]}")
        print(f"HOSTNAME={socket.gethostname()}")
        print(f"RANK={os.environ.get('RANK')}")
        with open(f"/opt/out/node-{os.environ['PET_NODE_RANK']}.txt", "w") as f:
            f.write(socket.gethostname())
        """);
    // torchrun(false): the base has no torch; the node's own environment is what is checked.
    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(Builders.jib(base).pushTo(REGISTRY.hostPort() + "/app"))
        .deployer(Deployers.trainJob("podjob-tj").numNodes(2).torchrun(false)
            .mutate(Mutators.pvc("podclaim", "/opt/out")).on(cluster))
        .progress(ProgressListener.NONE)
        .run();
    JobStatus end = job.waitForCompletion(Duration.ofMinutes(2));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.pods()).extracting(PodInfo::name)
        .containsExactly("podjob-tj-node-0-0", "podjob-tj-node-0-1");
    List<String> lines = job.logs().snapshot().stream()
        .map(l -> "[" + l.replica() + "] " + l.text()).toList();
    String port = lines.stream().filter(l -> l.startsWith("[node-0] PET_MASTER_PORT="))
        .findFirst().orElseThrow().substring("[node-0] PET_MASTER_PORT=".length());
    for (int rank = 0; rank < 2; rank++) {
      String node = "[node-" + rank + "] ";
      assertThat(lines.stream().filter(l -> l.startsWith(node + "PET_"))).containsExactly(
          node + "PET_MASTER_ADDR=127.0.0.1", node + "PET_MASTER_PORT=" + port,
          node + "PET_NNODES=2", node + "PET_NODE_RANK=" + rank, node + "PET_NPROC_PER_NODE=1");
      // None of the v1 operator's variables.
      assertThat(lines).contains(node + "RANK=None",
          node + "HOSTNAME=podjob-tj-node-0-" + rank);
      assertThat(cluster.claimDir("podclaim").resolve("node-" + rank + ".txt"))
          .hasContent("podjob-tj-node-0-" + rank);
    }
    job.delete();
  }

  @Test
  void aTrainJobsNodePostsItsProgressToTheStatusServerFromItsContainer() throws IOException {
    // Trainer's raw-HTTP way (its docs' option C), with the standard library: the base has no
    // requests. The container sees the plugin's files at the pod's path, read-only.
    Path script = Files.writeString(scripts.resolve("progress.py"), """
        import json, os, ssl, urllib.request
        from datetime import datetime, timezone
        url = os.environ["KUBEFLOW_TRAINER_SERVER_URL"]
        ca = os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"]
        print("CA", ca, flush=True)
        token = open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"]).read().strip()
        context = ssl.create_default_context(cafile=ca)
        for percent, loss in ((50, 0.75), (100, 0.5)):
            body = json.dumps({"trainerStatus": {"progressPercentage": percent,
                "metrics": [{"name": "loss", "value": str(loss)}],
                "lastUpdatedTime": datetime.now(timezone.utc).isoformat()}}).encode()
            request = urllib.request.Request(url, data=body, method="POST", headers={
                "Authorization": "Bearer " + token, "Content-Type": "application/json"})
            with urllib.request.urlopen(request, context=context, timeout=5) as response:
                print("posted", response.status, flush=True)
        try:
            open(ca, "a").close()
        except OSError as e:
            print("read-only", e.errno, flush=True)
        """);
    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(Builders.jib(base).pushTo(REGISTRY.hostPort() + "/app"))
        .deployer(Deployers.trainJob("podjob-ts").torchrun(false).on(cluster))
        .progress(ProgressListener.NONE)
        .run();
    JobStatus end = job.waitForCompletion(Duration.ofMinutes(2));

    List<String> lines = job.logs().snapshot().stream().map(LogLine::text).toList();
    assertThat(end.phase()).as(String.join("\n", lines)).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(lines).contains("CA /var/run/secrets/kubeflow/trainer/ca.crt", "read-only 30")
        .filteredOn(l -> l.startsWith("posted")).containsExactly("posted 200", "posted 200");
    assertThat(job.metrics().series("trainer", "progress")).extracting(p -> p.value())
        .containsExactly(50.0, 100.0);
    assertThat(job.metrics().latest("trainer", "loss")).contains(0.5);
    job.delete();
  }

  @Test
  void withoutARegistryTheImageIsBuiltIntoPodmansStorageAndRunsFromThere() throws IOException {
    List<dev.fairing4j.core.ProgressEvent> events = new CopyOnWriteArrayList<>();
    REGISTRY.clearRequests();
    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(scripts.resolve("envprint.py")))
        .builder(Builders.jib(base))  // no pushTo: podman's own storage is the target
        .deployer(deployer("podnoreg").workers(0))
        .progress(events::add)
        .run();
    try {
      assertThat(job.waitForCompletion(Duration.ofMinutes(2)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      assertThat(events).filteredOn(e -> e instanceof dev.fairing4j.core.ProgressEvent.Note)
          .map(Object::toString).anyMatch(n -> n.contains("loaded localhost/fairing4j/image:")
              && n.contains("into podman's image storage"));
      assertThat(REGISTRY.requests()).as("nothing pushed, only the base read")
          .noneMatch(r -> !r.method().equals("GET") && !r.method().equals("HEAD"));
      assertThat(job.logs().snapshot()).extracting(LogLine::text).contains("RANK=0");
      assertThat(job.toString()).isEqualTo("PyTorchJob default/podnoreg (podman)");
    } finally {
      job.delete();
    }
  }

  @Test
  void aCrashLoopReportsAsManyRestartsAsTheLogShowsRuns() {
    TrainingJob job = pipeline(deployer("podcrash").workers(0).backoffLimit(1)
        .args("--exit=1")).run();

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMinutes(2)))
        .isInstanceOfSatisfying(JobFailedException.class, e -> {
          assertThat(e.lastLines()).contains("--- run 2 (restart 1) ---")
              .noneMatch(l -> l.startsWith("--- run 3"));
          assertThat(e.getMessage()).contains("exited with code 1 after 1 restart:");
        });
    job.delete();
  }

  @Test
  void aFailingReplicaFailsTheJobWithItsExitCode() {
    TrainingJob job = pipeline(deployer("podfail").restartPolicy(RestartPolicy.NEVER)
        .args("--exit=3")).run();

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMinutes(2)))
        .isInstanceOfSatisfying(JobFailedException.class, e -> {
          assertThat(e.status().phase()).isEqualTo(JobPhase.FAILED);
          assertThat(e.exitCode()).contains(3);
          assertThat(e.lastLines()).anyMatch(l -> l.contains("RANK="));
        });
    job.delete();
  }

  @Test
  void deletingARunningJobRemovesItsContainers() throws IOException {
    List<String> lines = new CopyOnWriteArrayList<>();
    TrainingJob job = pipeline(deployer("podkill").args("--sleep")).run();
    try (LogStream logs = job.logs().follow(lines::add)) {
      Instant end = Instant.now().plusSeconds(60);
      while (lines.stream().filter(l -> l.endsWith("] sleeping")).count() < 2
          && Instant.now().isBefore(end)) {
        sleep(50);
      }
      assertThat(lines).contains("[master-0] sleeping", "[worker-0] sleeping");
      assertThat(containers()).hasSize(2);

      Instant before = Instant.now();
      job.delete();
      System.out.println("podkill: delete took "
          + Duration.between(before, Instant.now()).toMillis() + " ms");
    }
    assertThat(containers()).isEmpty();
    assertThat(cluster.attach("default", "podkill")).isEmpty();
  }

  /**
   * The podman cluster has Arena's verbs as the local cluster has them, and a bounded wait that
   * deletes: both through the interfaces a script holds, with no podman class named.
   */
  @Test
  void aTrainingClientSeesAndDeletesPodmanJobsAndATimeoutCanDeleteOne() throws IOException {
    TrainingClient client = TrainingClient.connect(cluster);
    pipeline(deployer("podclient").args("--sleep")).run();
    TrainingJob attached = client.attach("podclient");
    awaitSleeping(attached);

    assertThat(client.list().jobs()).singleElement().satisfies(job -> {
      assertThat(job.name()).isEqualTo("podclient");
      assertThat(job.status()).isEqualTo(JobPhase.RUNNING);
    });
    assertThat(client.get("podclient").status().pods()).extracting(PodInfo::name)
        .containsExactly("podclient-master-0", "podclient-worker-0");
    assertThat(client.logs("podclient").snapshot()).extracting(l -> l.text())
        .contains("sleeping");
    client.delete("podclient");
    assertThat(containers()).isEmpty();
    assertThat(client.list().jobs()).isEmpty();

    TrainingJob bounded = pipeline(deployer("podbound").args("--sleep")).run();
    awaitSleeping(bounded);
    assertThatThrownBy(() -> bounded.waitForCompletion(Duration.ofSeconds(1), OnTimeout.DELETE))
        .isInstanceOfSatisfying(JobTimeoutException.class,
            e -> assertThat(e.getMessage()).contains("deleted it"));
    assertThat(containers()).isEmpty();
    assertThat(cluster.attach("default", "podbound")).isEmpty();
  }

  /**
   * A served model on podman: the predictor image (plain Python, the base's interpreter) runs as
   * a container per replica on the host network, each model server on its own free port; the
   * endpoint predicts, a predictor's exception comes back with its message, and delete()
   * removes the containers.
   */
  @Test
  void aServedModelRunsAsAContainerPerReplicaAndAnswersPredictions() throws IOException {
    Path predictor = Files.writeString(scripts.resolve("celsius.py"), """
        class Celsius:
            def load(self):
                self.scale, self.offset = 1.8, 32.0
            def predict(self, instances):
                return [c * self.scale + self.offset for c in instances]
        """);
    Endpoint endpoint = Fairing.pipeline()
        .preprocessor(Preprocessors.predictor(predictor))
        .builder(Builders.jib(base).pushTo(REGISTRY.hostPort() + "/serve"))
        .deployer(Deployers.serving("podserve").replicas(2).on(cluster))
        .progress(ProgressListener.NONE)
        .serve();
    try {
      assertThat(endpoint.waitUntilReady(Duration.ofMinutes(2)).readyReplicas()).isEqualTo(2);
      assertThat(containers()).filteredOn(n -> n.startsWith("podserve-")).hasSize(2);
      assertThat(endpoint.predict(List.of(0, 100, -40))).containsExactly(32.0, 212.0, -40.0);
      assertThatThrownBy(() -> endpoint.predict(List.of("warm")))
          .isInstanceOfSatisfying(PredictionException.class, e -> {
            assertThat(e.httpStatus()).contains(500);
            assertThat(e.getMessage()).contains("TypeError");
          });
      assertThat(TrainingClient.connect(cluster).endpoints().endpoints())
          .extracting(EndpointStatus::name).containsExactly("podserve");
    } finally {
      endpoint.delete();
    }
    assertThat(containers()).isEmpty();
  }

  /** Waits until both replicas of {@code job} print that they sleep. */
  private static void awaitSleeping(TrainingJob job) {
    Instant end = Instant.now().plusSeconds(60);
    while (job.logs().snapshot().stream().filter(l -> l.text().equals("sleeping")).count() < 2
        && Instant.now().isBefore(end)) {
      sleep(50);
    }
    assertThat(job.logs().snapshot()).filteredOn(l -> l.text().equals("sleeping")).hasSize(2);
  }

  @Test
  void anotherJvmDeletesAJobAndAKilledJvmLeavesNoContainer() throws Exception {
    // A container left by a JVM whose watchdog died with it: the next JVM's first submit sweeps it.
    Path conf = Files.writeString(scripts.resolve("containers.conf"), "[containers]\n"
        + "default_ulimits = [\"nofile=20000:20000\", \"nproc=4096:4096\"]\n"
        + "[engine]\nruntime = \"runc\"\n");
    PythonBaseImage.run(List.of("/usr/bin/env", "CONTAINERS_CONF=" + conf,
        Tools.require("podman", "podman").toString(), "run", "--detach", "--tls-verify=false",
        "--name", "podsweep-orphan", "--label", "fairing4j.dev/managed-by=fairing4j",
        "--label", "fairing4j.dev/supervisor=4194305@0", "--entrypoint",
        "[\"python\",\"-c\",\"import time; time.sleep(120)\"]", base));
    assertThat(containers()).containsExactly("podsweep-orphan");
    String java = ProcessHandle.current().info().command().orElseThrow();
    Instant started = Instant.now();
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        PodmanChildJvm.class.getName(), state.toString(), volumes.toString(),
        scripts.resolve("envprint.py").toString(), base, REGISTRY.hostPort() + "/app",
        "podremote", "podorphan")
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8));
      String ready = CompletableFuture.supplyAsync(() -> {
        try {
          for (String line; (line = out.readLine()) != null; ) {
            if (line.equals("READY")) {
              return line;
            }
          }
          return "";
        } catch (IOException e) {
          return "";
        }
      }).get(90, TimeUnit.SECONDS);
      assertThat(ready).as("the child JVM started its jobs").isEqualTo("READY");
      System.out.println("podremote+podorphan: child JVM ready after "
          + Duration.between(started, Instant.now()).toMillis() + " ms");
      assertThat(containers()).hasSize(4).noneMatch(n -> n.startsWith("podsweep-"));

      // Deleted from this JVM, which does not supervise it: its containers go, the other's stay.
      TrainingJob remote = cluster.attach("default", "podremote").orElseThrow();
      assertThat(remote.status().phase()).isEqualTo(JobPhase.RUNNING);
      Instant deleting = Instant.now();
      remote.delete();
      System.out.println("podremote: delete from another JVM took "
          + Duration.between(deleting, Instant.now()).toMillis() + " ms");
      assertThat(containers()).hasSize(2).allMatch(n -> n.startsWith("podorphan-"));
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }

    // SIGKILL: conmon keeps the containers running; the child's watchdog removes them.
    Instant killed = Instant.now();
    Instant end = killed.plusSeconds(20);
    while (!containers().isEmpty() && Instant.now().isBefore(end)) {
      Thread.sleep(100);
    }
    System.out.println("podorphan: containers gone "
        + Duration.between(killed, Instant.now()).toMillis() + " ms after the SIGKILL");
    assertThat(containers()).as("no container outlives the SIGKILLed JVM").isEmpty();
    cluster.attach("default", "podorphan").ifPresent(TrainingJob::delete);
  }

  @Test
  void anExperimentRunsEachTrialAsContainersOfTheOneImageItBuilt() throws IOException {
    Path script = Files.writeString(scripts.resolve("tune.py"), """
        import argparse, logging, sys
        logging.basicConfig(stream=sys.stderr, level=logging.INFO)
        parser = argparse.ArgumentParser()
        parser.add_argument("--x", type=float)
        args = parser.parse_args()
        logging.info("trial with x=%s", args.x)
        print(f"score={1 - (args.x - 0.3) ** 2:.6f}")
        """);
    List<String> built = new CopyOnWriteArrayList<>();
    dev.fairing4j.core.Pipeline pipeline = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(Builders.jib(base).pushTo(REGISTRY.hostPort() + "/tune"))
        .deployer(Deployers.pyTorchJob("ignored").workers(1).on(cluster))
        .progress(event -> {
          if (event instanceof dev.fairing4j.core.ProgressEvent.StepFinished finished
              && finished.step().equals("build image")) {
            built.add(finished.step());
          }
        });
    Experiment experiment = Experiment.of("podtune", pipeline)
        .parameter("x", Search.uniform(0, 1)).objective(Objective.maximize("score"))
        .maxTrials(3).parallel(2);

    ExperimentResults results;
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofMinutes(3));
    }

    assertThat(built).as("the image is built once for every trial").hasSize(1);
    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    for (Trial trial : results.trials()) {
      double x = Double.parseDouble(trial.parameters().get("x"));
      assertThat(trial.objective()).hasValueSatisfying(v -> assertThat(v)
          .isCloseTo(1 - (x - 0.3) * (x - 0.3), org.assertj.core.data.Offset.offset(2e-6)));
    }
    assertThat(results.trials().get(0).job().orElseThrow().logs().snapshot())
        .extracting(LogLine::text).anyMatch(l -> l.startsWith("INFO:root:trial with x="));
    // As after a restart: the finished containers' logs read again give the same objectives.
    try (ExperimentRun again = experiment.attach()) {
      assertThat(again.waitForCompletion(Duration.ofMinutes(1)).trials())
          .extracting(Trial::objective).isEqualTo(results.trials().stream()
              .map(Trial::objective).toList());
      again.delete();
    }
  }

  private PyTorchJobDeployer deployer(String name) {
    return Deployers.pyTorchJob(name).workers(1)
        .mutate(Mutators.pvc("podclaim", "/opt/out"))
        .on(cluster);
  }

  private dev.fairing4j.core.Pipeline pipeline(PyTorchJobDeployer deployer) {
    return Fairing.pipeline()
        .preprocessor(Preprocessors.python(scripts.resolve("envprint.py")))
        .builder(Builders.jib(base).pushTo(REGISTRY.hostPort() + "/app"))
        .deployer(deployer)
        .progress(ProgressListener.NONE);
  }

  /** Names of the containers this test's jobs ran, that podman still knows. */
  private List<String> containers() throws IOException {
    return containerNames();
  }

  private static List<String> containerNames() throws IOException {
    String names = PythonBaseImage.run(List.of(Tools.require("podman", "podman").toString(),
        "ps", "--all", "--format", "{{.Names}}"));
    return names.lines().filter(n -> n.startsWith("podjob-") || n.startsWith("podfail-")
        || n.startsWith("podkill-") || n.startsWith("podremote-")
        || n.startsWith("podorphan-") || n.startsWith("podsweep-")
        || n.startsWith("podclient-") || n.startsWith("podbound-")
        || n.startsWith("podserve-") || n.startsWith("podtune-")).toList();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.GitPreprocessor;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The five seed scenarios end to end on the real cluster, as {@code scripts/example.sh NAME
 * --kubeconfig F --registry R} runs them: the example builds its image with Jib on the torch
 * base, pushes it to the kit's registry, and the operator's pods train on FashionMNIST from a
 * claim on the node's copy of the data set (pods have no internet); plus the same DDP as a batch
 * Indexed Job without the operator. Small runs: 300 samples, one epoch.
 */
@Tag(Tags.CLUSTER)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterSeedsIT {
  private static final String SAMPLES = "300";
  /** The claim the examples read FashionMNIST from ({@code --data-claim}). */
  private static final String DATA = "fashion-mnist";

  private static ClusterKit kit;
  private static String namespace;
  @TempDir static Path local;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
    namespace = kit.namespace();
    Path data = Tools.fashionMnist();
    kit.hostPathClaim(namespace, DATA, data.toString());
    kit.hostPathClaim(namespace, ArenaDist.DATA_CLAIM, data.toString());
    kit.hostPathClaim(PytorchSimple.NAMESPACE, DATA, data.toString());
  }

  @AfterAll
  static void cleanUp() throws IOException {
    // What the examples made outside this suite's namespace, which goes with the JVM.
    Files.deleteIfExists(Path.of(TraindbMnist.VOLUME_HOST_PATH, "mnist_cnn.pt"));
    kit.run(List.of("delete", "pytorchjob", "-n", PytorchSimple.NAMESPACE, PytorchSimple.JOB,
        "--ignore-not-found"));
    kit.run(List.of("delete", "pvc", "-n", namespace, FashionMnist.MODELS_CLAIM,
        "--ignore-not-found", "--wait=true", "--timeout=60s"));
    kit.run(List.of("delete", "pv", TraindbMnist.VOLUME, "--ignore-not-found", "--wait=true",
        "--timeout=60s"));
  }

  @Test
  void traindbMnistSavesTheModelOnTheNodesHostPathThroughItsClaim() throws IOException {
    Path model = Path.of(TraindbMnist.VOLUME_HOST_PATH, "mnist_cnn.pt");
    Files.deleteIfExists(model);

    var run = example("traindb-mnist", "--data-claim", DATA);

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("PersistentVolume " + TraindbMnist.VOLUME,
        "PersistentVolumeClaim " + namespace + "/" + FashionMnist.MODELS_CLAIM,
        "logs of " + TraindbMnist.JOB + ":",
        "[master-0] saved model to " + FashionMnist.MODELS_PATH + "/mnist_cnn.pt",
        "[worker-0] Using distributed PyTorch with gloo backend, rank 1 of 2",
        "deleted PyTorchJob " + TraindbMnist.JOB + " and its pods")
        .containsPattern("\\[master-0\\] accuracy=0\\.\\d{4}");
    // The pod wrote it through the claim; the node is this machine.
    assertThat(model).isRegularFile();
    assertThat(Files.size(model)).isPositive();
    JsonNode claim = kit.json("get", "pvc", "-n", namespace, FashionMnist.MODELS_CLAIM);
    assertThat(claim.path("spec").path("volumeName").asText()).isEqualTo(TraindbMnist.VOLUME);
    assertThat(kit.names("pods", namespace, "training.kubeflow.org/job-name="
        + TraindbMnist.JOB)).isEmpty();
  }

  @Test
  void traindbServeServesTheTrainedModelFromItsClaimThroughTheServiceProxy() {
    // Enough samples for a model better than one class in ten, so that serving an untrained
    // model could not pass for serving the trained one.
    String samples = "3000";
    var run = example("traindb-serve", "--data-claim", DATA, "--samples", samples);

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("Deployment " + namespace + "/" + TraindbServe.ENDPOINT,
        "Ready", "deleted Deployment " + TraindbServe.ENDPOINT,
        "deleted PyTorchJob " + TraindbMnist.JOB);
    Matcher served = Pattern.compile("served accuracy=(0\\.\\d{4}) on " + samples
        + " test images through http://" + TraindbServe.ENDPOINT + "." + namespace
        + ".svc.cluster.local/v1/models/mnist:predict").matcher(run.out());
    Matcher trained = Pattern.compile("trained accuracy=(0\\.\\d{4})").matcher(run.out());
    assertThat(served.find() && trained.find()).as(run.out()).isTrue();
    // One image either way: the server runs batches of 500, the training batches of 100.
    double accuracy = Double.parseDouble(trained.group(1));
    assertThat(accuracy).as("better than guessing one class in ten").isGreaterThan(0.25);
    assertThat(Math.abs(Double.parseDouble(served.group(1)) - accuracy))
        .isLessThanOrEqualTo(1.0 / Integer.parseInt(samples) + 1e-9);
    assertThat(kit.names("deployments,services,pods", namespace, "fairing4j.dev/job-name="
        + TraindbServe.ENDPOINT)).isEmpty();
  }

  @Test
  void glooDemoStreamsEveryReplicasLogAndDescribesTheJob() {
    var run = example("gloo-demo", "--data-claim", DATA);

    assertThat(run.status()).as(run.err()).isZero();
    for (int rank = 0; rank < 4; rank++) {
      String replica = rank == 0 ? "master-0" : "worker-" + (rank - 1);
      assertThat(run.out()).contains("[" + replica + "] Using distributed PyTorch with gloo"
          + " backend, rank " + rank + " of 4");
      assertThat(run.out()).containsPattern("\\[" + replica + "\\] Train Epoch: 1 ");
    }
    assertThat(run.out()).doesNotContainPattern("\\[worker-\\d\\] (Server|Address|Name):");
    assertThat(run.out()).containsPattern("\\[master-0\\] accuracy=0\\.\\d{4}")
        .containsPattern(GlooDemo.JOB + "\\s+PyTorchJob\\s+Succeeded")
        .contains(GlooDemo.JOB + "-worker-2 ");
    deleteJob("pytorchjob", namespace, GlooDemo.JOB);
  }

  @Test
  void pytorchSimpleRunsInTheKubeflowNamespace() {
    var run = exampleIn(Optional.empty(), "pytorch-simple", "--data-claim", DATA);

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("[worker-0] Using distributed PyTorch with gloo backend,"
        + " rank 1 of 2").containsPattern("\\[master-0\\] accuracy=0\\.\\d{4}");
    JsonNode job = kit.json("get", "pytorchjob", "-n", PytorchSimple.NAMESPACE,
        PytorchSimple.JOB);
    assertThat(job.path("status").path("conditions").toString()).contains("\"Succeeded\"");
    deleteJob("pytorchjob", PytorchSimple.NAMESPACE, PytorchSimple.JOB);
  }

  @Test
  @Order(2)
  void arenaDistTrainsFromGitOnItsClaimAndAnswersArenasVerbs() throws IOException {
    var run = example("arena-dist", "--gpus", "0");

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("[worker-1] Using distributed PyTorch with gloo backend,"
        + " rank 2 of 3", "[master-0] no TensorBoard logs: the tensorboard package is not"
        + " installed").containsPattern("\\[master-0\\] accuracy=0\\.\\d{4}");
    // TrainingClient's answers, as the example prints them after the run.
    String arena = run.out().substring(run.out().indexOf("$ arena list"));
    assertThat(arena).containsPattern(ArenaDist.JOB + "\\s+Succeeded\\s+PyTorchJob")
        .contains("$ arena get " + ArenaDist.JOB, "$ arena top job", "$ arena top node",
            "cluster-node", "$ arena logs --tail 5 " + ArenaDist.JOB,
            "$ arena logs -i " + ArenaDist.JOB + "-worker-1 --tail 5")
        .containsPattern(ArenaDist.JOB + "-worker-1\\s+Succeeded")
        .containsPattern("\\[worker-1\\] training took \\d");
    // Same job name as the GPU run before it, whose events live on for an hour: they are not
    // this run's (they were, before events were matched by uid).
    assertThat(run.out()).doesNotContain("Insufficient nvidia.com/gpu");
    // The code came from the example's git repository: the pushed image says which commit.
    JsonNode master = kit.json("get", "pytorchjob", "-n", namespace, ArenaDist.JOB)
        .path("spec").path("pytorchReplicaSpecs").path("Master").path("template").path("spec");
    assertThat(master.path("volumes").toString())
        .contains("\"claimName\":\"" + ArenaDist.DATA_CLAIM + "\"");
    JsonNode image = new ObjectMapper().readTree(PythonBaseImage.run(List.of(
        Tools.require("skopeo", "skopeo").toString(), "inspect", "--tls-verify=false",
        "docker://" + master.path("containers").path(0).path("image").asText())));
    try (Git repo = Git.open(Path.of(URI.create(ExampleRepos.of(FashionMnist.SCRIPT)))
        .toFile())) {
      assertThat(image.path("Labels").path(GitPreprocessor.REVISION_LABEL).asText())
          .isEqualTo(repo.getRepository().resolve("HEAD").name());
    }
    // TensorBoard: no image for it here, so only its objects are checked, owned by the job.
    String board = ArenaDist.JOB + "-tensorboard";
    assertThat(run.out()).contains("TensorBoard: kubectl port-forward -n " + namespace + " svc/"
        + board + " 6006:6006");
    for (String kind : List.of("deployment", "service")) {
      JsonNode object = kit.json("get", kind, "-n", namespace, board);
      assertThat(object.path("metadata").path("ownerReferences").toString())
          .contains("\"kind\":\"PyTorchJob\"", "\"name\":\"" + ArenaDist.JOB + "\"");
    }

    dev.fairing4j.deployer.TrainingClient.connect(kit.cluster()).inNamespace(namespace)
        .delete(ArenaDist.JOB);

    // Deleting the job takes everything it owns: pods, Services, TensorBoard.
    assertThat(kit.names("pods,services", namespace, "training.kubeflow.org/job-name="
        + ArenaDist.JOB)).isEmpty();
    assertThat(kit.run(List.of("get", "deployment", "-n", namespace, board)).output())
        .contains("NotFound");
  }

  // First, so the run after it shows whether its predecessor's events leak into its status.
  @Test
  @Order(1)
  void arenaDistAskingForGpusStaysPendingWithTheSchedulersReason() {
    ExampleOptions options = ExampleOptions.parse("arena-dist", "--kubeconfig",
        kit.kubeconfig().toString(), "--registry", ClusterKit.repository("arena-dist"),
        "--base", kit.base().reference(), "--namespace", namespace, "--samples", SAMPLES,
        "--gpus", "1", "--quiet");
    TrainingJob job = Examples.pipeline(options, Optional.of(kit.cluster()))
        .progress(ProgressListener.NONE).run();
    try {
      List<JobStatus> seen = new ArrayList<>();
      ClusterKit.await("every replica is Unschedulable", Duration.ofMinutes(1), () -> {
        JobStatus status = job.status();
        seen.add(status);
        return status.pods().size() == 3 && status.pods().stream()
            .allMatch(p -> p.reason().equals(Optional.of("Unschedulable")));
      }, () -> seen.get(seen.size() - 1).toTable());
      JobStatus status = seen.get(seen.size() - 1);

      assertThat(status.isTerminal()).isFalse();
      assertThat(status.pods()).allSatisfy(pod -> {
        assertThat(pod.phase()).isEqualTo("Pending");
        assertThat(pod.node()).isEmpty();
        assertThat(pod.message().orElse("")).contains("Insufficient nvidia.com/gpu");
      });
      assertThat(status.toTable()).contains("Unschedulable", "Insufficient nvidia.com/gpu");
    } finally {
      job.delete();
    }
  }

  @Test
  void tfMultiworkerGivesEachReplicaTheClusterAndTaskTheContractSays(@TempDir Path models)
      throws IOException {
    kit.hostPathClaim(namespace, TfMultiworker.CLAIM, models.toString());
    Path script = Files.writeString(models.resolve("tf_config_check.py"), TF_CONFIG_CHECK);
    ExampleOptions options = ExampleOptions.parse("tf-multiworker", "--gpus", "0");
    // The example's TFJob as it renders it, with a script that checks TF_CONFIG instead of
    // importing TensorFlow, and with requests that fit the kit's 2-CPU node.
    var deployer = new TfMultiworker().deployer(options, Optional.of(kit.cluster()))
        .mutate(Mutators.resources("100m", "256Mi"))
        .namespace(namespace)
        .on(kit.cluster());
    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(Builders.jib(kit.base().reference())
            .pushTo(ClusterKit.repository("tf-config-check")))
        .deployer(deployer)
        .progress(ProgressListener.NONE)
        .run();
    List<String> lines = new CopyOnWriteArrayList<>();
    try (LogStream logs = job.logs().follow(line -> lines.add(line.toString()))) {
      JobStatus end = job.waitForCompletion(Duration.ofMinutes(3));
      assertThat(logs.awaitEnd(Duration.ofSeconds(30))).isTrue();
      assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    } finally {
      System.out.println(String.join("\n", lines));
    }

    String job0 = TfMultiworker.JOB;
    String chief = job0 + "-chief-0." + namespace + ".svc:2222";
    String worker0 = job0 + "-worker-0." + namespace + ".svc:2222";
    String worker1 = job0 + "-worker-1." + namespace + ".svc:2222";
    String cluster = "{\"cluster\":{\"chief\":[\"" + chief + "\"],\"worker\":[\"" + worker0
        + "\",\"" + worker1 + "\"]},";
    assertThat(lines).contains(
        "[chief-0] TF_CONFIG=" + cluster + "\"task\":{\"type\":\"chief\",\"index\":0},"
            + "\"environment\":\"cloud\"}",
        "[worker-1] TF_CONFIG=" + cluster + "\"task\":{\"type\":\"worker\",\"index\":1},"
            + "\"environment\":\"cloud\"}",
        "[chief-0] TF_CONFIG task chief:0 of 3 replicas",
        "[worker-0] TF_CONFIG task worker:0 of 3 replicas",
        "[chief-0] reached " + worker1, "[worker-1] reached " + chief,
        "[chief-0] heard from ['worker:0', 'worker:1']",
        "[worker-0] heard from ['chief:0', 'worker:1']");
    job.delete();
  }

  /**
   * Prints TF_CONFIG, checks that this replica is the task it names, listens where the cluster
   * spec puts this task and reaches every other task there (by the names the operator's
   * Services give), as MultiWorkerMirroredStrategy would, without TensorFlow.
   */
  private static final String TF_CONFIG_CHECK = """
      import json, os, socket, sys, threading, time
      raw = os.environ["TF_CONFIG"]
      print("TF_CONFIG=" + raw, flush=True)
      config = json.loads(raw)
      cluster, task = config["cluster"], config["task"]
      me = "{}:{}".format(task["type"], task["index"])
      print("TF_CONFIG task {} of {} replicas".format(me, sum(map(len, cluster.values()))),
            flush=True)
      mine = cluster[task["type"]][task["index"]]
      if mine.split(".")[0] != socket.gethostname():
          print("TF_CONFIG names", mine, "but this is", socket.gethostname(), flush=True)
          sys.exit(4)
      peers = [a for t in sorted(cluster) for a in cluster[t] if a != mine]
      server = socket.socket()
      server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
      server.bind(("", int(mine.rsplit(":", 1)[1])))
      server.listen(8)
      heard = set()
      def accept():
          while True:
              conn, _ = server.accept()
              heard.add(conn.recv(64).decode())
              conn.close()
      threading.Thread(target=accept, daemon=True).start()
      deadline = time.time() + 120
      for peer in peers:
          host, port = peer.rsplit(":", 1)
          while True:
              try:
                  with socket.create_connection((host, int(port)), timeout=5) as c:
                      c.sendall(me.encode())
                  print("reached", peer, flush=True)
                  break
              except OSError as e:
                  if time.time() > deadline:
                      print("cannot reach", peer, e, flush=True)
                      sys.exit(2)
                  time.sleep(0.3)
      while len(heard) < len(peers) and time.time() < deadline:
          time.sleep(0.1)
      print("heard from", sorted(heard), flush=True)
      sys.exit(0 if len(heard) == len(peers) else 3)
      """;

  @Test
  void aBatchIndexedJobRunsTheSameDdpWithoutTheOperator() {
    String name = "ddp-indexed";
    TrainingJob job = Fairing.pipeline()
        .preprocessor(FashionMnist.script())
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository(name)))
        .deployer(Deployers.batchJob(name).replicas(2).namespace(namespace)
            .args(new FashionMnist(name, 1, 300, 300, 1).scriptArgs())
            .mutate(Mutators.pvc(DATA, FashionMnist.DATA_DIR).readOnly())
            .replaceExisting()
            .on(kit.cluster()))
        .progress(ProgressListener.NONE)
        .run();
    List<String> lines = new CopyOnWriteArrayList<>();
    JobStatus end;
    try (LogStream logs = job.logs().follow(line -> lines.add(line.toString()))) {
      end = job.waitForCompletion(Duration.ofMinutes(3));
      assertThat(logs.awaitEnd(Duration.ofSeconds(30))).isTrue();
    } finally {
      System.out.println(String.join("\n", lines));
    }

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.pods()).extracting(PodInfo::index).containsExactlyInAnyOrder(0, 1);
    assertThat(lines).anyMatch(l -> l.endsWith("Using distributed PyTorch with gloo backend,"
        + " rank 0 of 2")).anyMatch(l -> l.endsWith("Using distributed PyTorch with gloo"
        + " backend, rank 1 of 2")).anyMatch(l -> l.matches("\\[[a-z]+-0\\] accuracy=0\\.\\d{4}"));
    // The rendezvous went through the job's own headless Service, not the operator's.
    JsonNode service = kit.json("get", "service", "-n", namespace, name);
    assertThat(service.path("spec").path("clusterIP").asText()).isEqualTo("None");
    assertThat(service.path("metadata").path("ownerReferences").toString())
        .contains("\"kind\":\"Job\"");

    job.delete();

    assertThat(kit.names("pods,services", namespace, "fairing4j.dev/job-name=" + name))
        .isEmpty();
  }

  private static void deleteJob(String kind, String ns, String name) {
    kit.kubectl("delete", kind, "-n", ns, name, "--ignore-not-found", "--wait=true",
        "--timeout=120s");
  }

  /** The example {@code name} on the kit, in this suite's namespace. */
  private static ExamplesDryRunTest.Captured example(String name, String... more) {
    return exampleIn(Optional.of(namespace), name, more);
  }

  private static ExamplesDryRunTest.Captured exampleIn(Optional<String> ns, String name,
      String... more) {
    List<String> args = new ArrayList<>(List.of(name, "--kubeconfig", kit.kubeconfig()
        .toString(), "--registry", ClusterKit.repository(name), "--base",
        kit.base().reference(), "--samples", SAMPLES, "--quiet"));
    ns.ifPresent(n -> args.addAll(List.of("--namespace", n)));
    args.addAll(List.of(more));
    Instant start = Instant.now();
    var run = ExamplesDryRunTest.run(Clusters.local().stateDir(local.resolve("state"))
        .volumesDir(local.resolve("volumes")), args.toArray(String[]::new));
    System.out.println("cluster: example " + name + " took "
        + Duration.between(start, Instant.now()).toMillis() + " ms, exit " + run.status());
    System.out.println(run.out());
    System.out.println(run.err());
    return run;
  }
}

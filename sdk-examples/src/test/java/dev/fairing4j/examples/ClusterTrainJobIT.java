package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.trainer.internal.TrainerTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * TrainJobs end to end on the real Kubeflow Trainer v2.0.1 and JobSet v0.8.2 controllers
 * ({@code ../shared/k8s/trainer-v2}, on the kit started without the v1 operator): the SDK builds
 * the image with Jib on the torch base, pushes it to the kit's registry and submits a 2-node
 * TrainJob on {@code torch-distributed}; both nodes train FashionMNIST with DDP (300 samples,
 * from the node's copy of the data set through a claim: pods have no internet), every node's log
 * is followed, the torch plugin's environment on the pods equals what the SDK computes for the
 * local cluster; the TrainingClient lists, attaches and deletes it. A crashing script on
 * {@code torch-distributed-fastfail} ends in a JobFailedException with JobSet's reason.
 */
@Tag(Tags.CLUSTER)
@Tag(Tags.TRAINER_V2)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ClusterTrainJobIT {
  private static final String DATA = "fashion-mnist";
  private static final String FASTFAIL = "torch-distributed-fastfail";

  private static ClusterKit kit;
  private static String namespace;

  @BeforeAll
  static void trainerV2() throws Exception {
    kit = ClusterKit.get();
    if (kit.run(List.of("get", "crd", "trainjobs.trainer.kubeflow.org")).status() != 0
        || kit.run(List.of("get", "clustertrainingruntime", "torch-distributed")).status()
            != 0) {
      throw new AssertionFailedError("the kit runs no Kubeflow Trainer v2: bring it up without"
          + " the v1 operator and start the Trainer and JobSet controllers: KUBECONFIG=$(OPERATOR=0"
          + " ../shared/k8s/cluster/up.sh | tail -1); ../shared/k8s/trainer-v2/up.sh"
          + " (.ci/run does this in its trainer-v2 phase)");
    }
    // The kit's fail-fast variant of torch-distributed (backoffLimit 0, restartPolicy Never).
    Path manifests = Path.of(Optional.ofNullable(System.getenv("FAIRING4J_K8S"))
        .orElse("../../shared/k8s"), "trainer-v2", "manifests");
    kit.kubectl("apply", "-f", manifests.resolve("torch_distributed_fastfail.yaml").toString());
    namespace = kit.namespace();
    kit.hostPathClaim(namespace, DATA, Tools.fashionMnist().toString());
  }

  @Test
  void twoNodesTrainFashionMnistWithDdpAndAreListedAttachedAndDeleted() throws Exception {
    String name = "tj-ddp";
    var deployer = Deployers.trainJob(name).numNodes(2).namespace(namespace)
        .args(new FashionMnist(name, 1, 300, 300, 1).scriptArgs())
        .mutate(Mutators.pvc(DATA, FashionMnist.DATA_DIR).readOnly())
        .on(kit.cluster());
    var pipeline = Fairing.pipeline()
        .preprocessor(FashionMnist.script())
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository(name)))
        .deployer(deployer)
        .progress(ProgressListener.NONE);
    String rendered = pipeline.dryRun();
    List<String> lines = new CopyOnWriteArrayList<>();
    long started = System.nanoTime();
    TrainingJob job = pipeline.run();
    JobStatus end;
    try (LogStream logs = job.logs().follow(line -> lines.add(line.toString()))) {
      end = job.waitForCompletion(Duration.ofMinutes(4));
      assertThat(logs.awaitEnd(Duration.ofSeconds(30))).isTrue();
    } finally {
      System.out.println(String.join("\n", lines));
    }
    System.out.println("[measure] 2-node DDP TrainJob on Trainer v2.0.1: "
        + Duration.ofNanos(System.nanoTime() - started).toMillis()
        + " ms (build, push, submit to Complete)");

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.decidingCondition()).get().satisfies(c ->
        assertThat(c.reason()).isEqualTo("AllJobsCompleted"));
    assertThat(lines).contains(
        "[node-0] Using distributed PyTorch with gloo backend, rank 0 of 2",
        "[node-1] Using distributed PyTorch with gloo backend, rank 1 of 2")
        .anyMatch(l -> l.matches("\\[node-1\\] Train Epoch: 1 .*"))
        .anyMatch(l -> l.matches("\\[node-0\\] accuracy=0\\.\\d{4}"));
    assertThat(end.pods()).extracting(PodInfo::name)
        .allMatch(p -> p.matches(name + "-node-0-[01]-[a-z0-9]{5}"));

    // The torch plugin's variables on the real pods, against what the SDK computes (and the
    // local cluster gives, with the host and port made local).
    Map<String, Object> trainJob = trainJob(rendered);
    List<TrainerTopology.Node> expected = TrainerTopology.torchNodes(trainJob);
    JsonNode pods = kit.json("get", "pods", "-n", namespace, "-l",
        "jobset.sigs.k8s.io/jobset-name=" + name + ",jobset.sigs.k8s.io/replicatedjob-name=node");
    assertThat(pods.path("items")).hasSize(2);
    for (JsonNode pod : pods.path("items")) {
      int rank = pod.path("metadata").path("annotations")
          .path("batch.kubernetes.io/job-completion-index").asInt();
      Map<String, String> env = new TreeMap<>();
      for (JsonNode container : pod.path("spec").path("containers")) {
        if (container.path("name").asText().equals("node")) {
          for (JsonNode var : container.path("env")) {
            String value = var.has("value") ? var.path("value").asText()
                : "fieldRef:" + var.path("valueFrom").path("fieldRef").path("fieldPath").asText();
            env.put(var.path("name").asText(), value);
          }
        }
      }
      Map<String, String> want = new TreeMap<>(expected.get(rank).env());
      // On a cluster the rank comes from the downward API; its value is the completion index.
      want.put("PET_NODE_RANK",
          "fieldRef:metadata.annotations['batch.kubernetes.io/job-completion-index']");
      assertThat(env).as("node " + rank).containsAllEntriesOf(want);
      assertThat(env.keySet().stream().filter(k -> k.startsWith("PET_")))
          .containsExactlyInAnyOrderElementsOf(want.keySet());
      assertThat(pod.path("spec").path("hostname").asText())
          .isEqualTo(expected.get(rank).hostname());
    }

    TrainingClient client = TrainingClient.connect(kit.cluster()).inNamespace(namespace);
    assertThat(client.list().jobs()).anySatisfy(listed -> {
      assertThat(listed.name()).isEqualTo(name);
      assertThat(listed.trainer()).isEqualTo("TrainJob");
      assertThat(listed.status()).isEqualTo(JobPhase.SUCCEEDED);
    });
    TrainingJob attached = client.attach(name);
    assertThat(attached.status().phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(attached.logs().replica("node-1").snapshot())
        .anyMatch(l -> l.text().equals("Using distributed PyTorch with gloo backend, rank 1 of 2"));

    client.delete(name);
    assertThat(kit.run(List.of("get", "trainjob", "-n", namespace, name)).output())
        .contains("NotFound");
    ClusterKit.await("the JobSet's pods are gone", Duration.ofMinutes(1),
        () -> kit.names("pods", namespace, "jobset.sigs.k8s.io/jobset-name=" + name).isEmpty(),
        () -> kit.names("pods", namespace, "jobset.sigs.k8s.io/jobset-name=" + name)
            .toString());
  }

  @Test
  void aCrashingScriptOnTheFastFailRuntimeFailsWithJobSetsReason(@TempDir Path dir)
      throws Exception {
    String name = "tj-crash";
    Path script = Files.writeString(dir.resolve("crash.py"), String.join("\n",
        "import sys",
        "print('loading the data', flush=True)",
        "sys.exit('cannot read /data/train.csv')",
        ""));
    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository(name)))
        .deployer(Deployers.trainJob(name).runtime(FASTFAIL).numNodes(2).namespace(namespace)
            .on(kit.cluster()))
        .progress(ProgressListener.NONE)
        .run();
    List<String> lines = new CopyOnWriteArrayList<>();
    try (LogStream logs = job.logs().follow(line -> lines.add(line.toString()))) {
      assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMinutes(3)))
          .isInstanceOfSatisfying(JobFailedException.class, e -> {
            System.out.println("[show] " + e.getMessage());
            assertThat(e.status().decidingCondition()).get().satisfies(c -> {
              assertThat(c.reason()).isEqualTo("FailedJobs");
              assertThat(c.message()).contains("jobset failed due to one or more job failures");
            });
            assertThat(e.failedReplica()).get().asString().matches("node-[01]");
            assertThat(e.lastLines()).contains("cannot read /data/train.csv")
                .noneMatch(l -> l.contains("ChildFailedError"));
          });
    }
    assertThat(lines).anyMatch(l -> l.matches("\\[node-[01]\\] cannot read /data/train.csv"));
    job.delete();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> trainJob(String yaml) throws Exception {
    var parser = new ObjectMapper(new YAMLFactory()).readerFor(Map.class).readValues(yaml);
    while (parser.hasNext()) {
      Map<String, Object> object = new LinkedHashMap<>((Map<String, Object>) parser.next());
      if ("TrainJob".equals(object.get("kind"))) {
        return object;
      }
    }
    throw new AssertionFailedError("no TrainJob in the rendered manifests:\n" + yaml);
  }
}

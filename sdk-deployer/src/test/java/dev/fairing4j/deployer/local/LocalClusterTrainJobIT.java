package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.trainer.TrainJobDeployer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kubeflow Trainer v2 TrainJobs through the front door ({@code Deployers.trainJob(..)}) on the
 * local cluster: each node is a process named as its JobSet pod ({@code <job>-node-0-<i>}) with
 * the torch plugin's environment (CONTRACT.md (c)), compared field by field; real DDP with
 * Debian's torch through torchrun, with one and with two processes per node; a crashing script's
 * failure report; attach, TrainingClient list and delete.
 */
@Timeout(240)
class LocalClusterTrainJobIT extends LocalClusterTestBase {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Prints the node's environment; node 0 waits until every node wrote its marker. */
  private static final String PRINTENV = String.join("\n",
      "import json, os, sys, time, uuid",
      "print('ENV ' + json.dumps(dict(os.environ), sort_keys=True), flush=True)",
      "open('/shared/' + uuid.uuid4().hex, 'w').close()",
      "if os.environ.get('PET_NODE_RANK') == '0':",
      "    deadline = time.time() + 30",
      "    while len(os.listdir('/shared')) < int(sys.argv[1]) and time.time() < deadline:",
      "        time.sleep(0.05)",
      "");
  /** Every process of the job trains a few steps together and all-reduces its rank + 1. */
  private static final String TRAIN = String.join("\n",
      "import os",
      "import torch",
      "import torch.distributed as dist",
      "import torch.nn as nn",
      "dist.init_process_group('gloo')",
      "rank, world = dist.get_rank(), dist.get_world_size()",
      "torch.manual_seed(0)",
      "model = nn.parallel.DistributedDataParallel(nn.Linear(4, 1))",
      "opt = torch.optim.SGD(model.parameters(), lr=0.05)",
      "x = torch.randn(32, 4) + rank",
      "y = x.sum(dim=1, keepdim=True)",
      "for step in range(3):",
      "    opt.zero_grad()",
      "    ((model(x) - y) ** 2).mean().backward()",
      "    opt.step()",
      "t = torch.tensor([float(rank + 1)])",
      "dist.all_reduce(t)",
      // One write per line: two processes of a node share its output.
      "os.write(1, f'rank={rank} local={os.environ[\"LOCAL_RANK\"]} world={world}"
          + " all_reduce={t.item():.0f}\\n'.encode())",
      "dist.barrier()",
      "dist.destroy_process_group()",
      "");

  @BeforeAll
  static void torch() {
    Tools.torchPython();
  }

  @Test
  void eachNodeGetsExactlyTheTorchPluginsEnvironmentUnderItsJobSetPodName() throws Exception {
    BuildContext context = context("/app/printenv.py", PRINTENV)
        .withEnv("IMAGE_ENV", "from-context");
    // torchrun(false): the node's own environment, not what torchrun gives its workers.
    TrainJobDeployer deployer = Deployers.trainJob("envtj").numNodes(2).torchrun(false)
        .args("2").env("FOO", "bar")
        .mutate(Mutators.pvc("envtj-shared", "/shared"));

    TrainingJob job = deployer.on(cluster()).asDeployer().deploy(context, Optional.empty(),
        ProgressListener.NONE);
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(60));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.kind()).isEqualTo("TrainJob");
    assertThat(end.pods()).extracting(PodInfo::name)
        .containsExactly("envtj-node-0-0", "envtj-node-0-1");
    assertThat(end.pods()).extracting(PodInfo::replicaType).containsOnly("node");
    Map<String, Map<String, String>> envs = envs(job);
    assertThat(envs).containsOnlyKeys("node-0", "node-1");
    String port = envs.get("node-0").get("PET_MASTER_PORT");
    assertThat(port).matches("[0-9]+").isNotEqualTo("29500");
    // The TrainJobStatus plugin's three: this job's status server on the loopback, its files
    // where the pod's projected volume puts them.
    String statusUrl = envs.get("node-0").get("KUBEFLOW_TRAINER_SERVER_URL");
    assertThat(statusUrl).matches("https://127\\.0\\.0\\.1:[0-9]+/apis/trainer\\.kubeflow\\.org"
        + "/v1alpha1/namespaces/default/trainjobs/envtj/status");
    for (int rank = 0; rank < 2; rank++) {
      Map<String, String> expected = new TreeMap<>(Map.ofEntries(
          Map.entry("PATH", "/.fairing4j/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
              + "/sbin:/bin"),
          Map.entry("HOME", "/root"),
          Map.entry("IMAGE_ENV", "from-context"),
          Map.entry("FOO", "bar"),
          Map.entry("PET_NNODES", "2"),
          Map.entry("PET_NPROC_PER_NODE", "1"),
          Map.entry("PET_NODE_RANK", String.valueOf(rank)),
          Map.entry("PET_MASTER_ADDR", "127.0.0.1"),
          Map.entry("PET_MASTER_PORT", port),
          Map.entry("KUBEFLOW_TRAINER_SERVER_URL", statusUrl),
          Map.entry("KUBEFLOW_TRAINER_SERVER_CA_CERT", "/var/run/secrets/kubeflow/trainer/ca.crt"),
          Map.entry("KUBEFLOW_TRAINER_SERVER_TOKEN", "/var/run/secrets/kubeflow/trainer/token")));
      Map<String, String> actual = new TreeMap<>(envs.get("node-" + rank));
      // bwrap sets PWD for --chdir; Python's locale coercion (PEP 538) sets LC_CTYPE.
      assertThat(actual.remove("PWD")).isEqualTo("/app");
      actual.remove("LC_CTYPE");
      // Exactly the plugin's variables: none of the v1 operator's (MASTER_ADDR, RANK,
      // WORLD_SIZE, PYTHONUNBUFFERED), nothing of the JVM's environment.
      assertThat(actual).as("node-" + rank).isEqualTo(expected);
    }
    assertThat(end.conditions()).extracting(JobCondition::type)
        .containsExactly("Running", "Succeeded");
    assertThat(end.decidingCondition()).get().satisfies(c -> {
      assertThat(c.reason()).isEqualTo("AllJobsCompleted");
      assertThat(c.message()).isEqualTo("jobset completed successfully");
    });
  }

  @Test
  void twoNodesTrainWithDdpThroughTorchrunAndAreListedAttachedAndDeleted() {
    List<String> followed = new CopyOnWriteArrayList<>();
    LocalCluster cluster = cluster();
    long started = System.nanoTime();
    TrainingJob job = Deployers.trainJob("ddptj").numNodes(2).on(cluster)
        .asDeployer().deploy(context("/app/train.py", TRAIN), Optional.empty(),
            ProgressListener.NONE);
    JobStatus end;
    try (LogStream logs = job.logs().follow(followed::add)) {
      end = job.waitForCompletion(Duration.ofSeconds(120));
      assertThat(logs.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }
    System.out.println("[measure] 2-node DDP TrainJob through LocalCluster: "
        + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms (submit to Succeeded)");

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(followed).contains("[node-0] rank=0 local=0 world=2 all_reduce=3",
        "[node-1] rank=1 local=0 world=2 all_reduce=3");
    assertThat(job.logs().replica("node-1").snapshot()).extracting(LogLine::replica)
        .containsOnly("node-1");

    // Another cluster value, as a restarted kernel would make: list, attach, delete.
    LocalCluster again = LocalCluster.create().stateDir(state).volumesDir(volumes);
    TrainingClient client = TrainingClient.connect(again);
    assertThat(client.list().jobs()).singleElement().satisfies(listed -> {
      assertThat(listed.name()).isEqualTo("ddptj");
      assertThat(listed.trainer()).isEqualTo("TrainJob");
      assertThat(listed.status()).isEqualTo(JobPhase.SUCCEEDED);
    });
    TrainingJob attached = again.attach("default", "ddptj").orElseThrow();
    assertThat(attached.status().pods()).extracting(PodInfo::name)
        .containsExactly("ddptj-node-0-0", "ddptj-node-0-1");
    assertThat(attached.logs().snapshot()).extracting(LogLine::text)
        .contains("rank=1 local=0 world=2 all_reduce=3");
    client.delete("ddptj");
    assertThat(cluster.list("default")).isEmpty();
  }

  @Test
  void twoProcessesPerNodeRunThroughTorchrun() {
    TrainingJob job = Deployers.trainJob("proctj").numNodes(2).numProcPerNode(2).on(cluster())
        .asDeployer().deploy(context("/app/train.py", TRAIN), Optional.empty(),
            ProgressListener.NONE);
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(150));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    List<String> lines = job.logs().snapshot().stream()
        .map(l -> "[" + l.replica() + "] " + l.text()).toList();
    // 2 nodes x 2 processes: world 4, ranks 0-1 on node 0 and 2-3 on node 1; 1+2+3+4 = 10.
    assertThat(lines).contains("[node-0] rank=0 local=0 world=4 all_reduce=10",
        "[node-0] rank=1 local=1 world=4 all_reduce=10",
        "[node-1] rank=2 local=0 world=4 all_reduce=10",
        "[node-1] rank=3 local=1 world=4 all_reduce=10");
  }

  /** The Kubeflow SDK's TrainerCommand and TrainerArgs: the context's command is not run. */
  @Test
  void anOwnCommandRunsWithTheArgsInsteadOfThePreprocessorsCommand() {
    TrainingJob job = Deployers.trainJob("cmdtj").command("python3", "-m", "mypkg.train")
        .args("--lr=0.1").on(cluster()).asDeployer().deploy(BuildContext.empty()
            .withFile("/app/mypkg/__init__.py", ContextFile.ofText(""))
            .withFile("/app/mypkg/train.py", ContextFile.ofText("import os, sys\n"
                + "print('train', sys.argv[1:], os.environ['PET_NNODES'], flush=True)\n"))
            .withFile("/app/main.py", ContextFile.ofText("print('not me', flush=True)\n"))
            .withCommand(List.of("python", "-u", "/app/main.py")), Optional.empty(),
            ProgressListener.NONE);

    assertThat(job.waitForCompletion(Duration.ofSeconds(60)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    assertThat(job.logs().snapshot()).extracting(LogLine::text)
        .containsExactly("train ['--lr=0.1'] 1");
    // One container per local replica: its name reads the same log, another is refused.
    assertThat(job.logs().container("node").snapshot()).extracting(LogLine::text)
        .containsExactly("train ['--lr=0.1'] 1");
    assertThatThrownBy(() -> job.logs().container("metrics"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("run one container, node, not 'metrics'");
  }

  @Test
  void aCrashingScriptFailsTheJobWithTheJobSetsReasonAndItsLastLines() {
    String crash = String.join("\n",
        "import sys",
        "print('loading the data', flush=True)",
        "sys.exit('cannot read /data/train.csv')",
        "");
    TrainingJob job = Deployers.trainJob("crashtj").numNodes(2).on(cluster())
        .asDeployer().deploy(context("/app/crash.py", crash), Optional.empty(),
            ProgressListener.NONE);

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofSeconds(180)))
        .isInstanceOfSatisfying(JobFailedException.class, e -> {
          assertThat(e.status().phase()).isEqualTo(JobPhase.FAILED);
          assertThat(e.status().decidingCondition()).get().satisfies(c -> {
            assertThat(c.reason()).isEqualTo("FailedJobs");
            assertThat(c.message()).isEqualTo("jobset failed due to one or more job failures"
                + " (first failed job: crashtj-node-0)");
          });
          assertThat(e.failedReplica()).get().asString().matches("node-[01]");
          // The script's own error, not torchrun's 40-line report, which is cut to one line.
          assertThat(e.lastLines()).contains("cannot read /data/train.csv")
              .anyMatch(l -> l.matches("torchrun: rank [01] \\(local rank 0\\) exited with"
                  + " code 1 .*"))
              .noneMatch(l -> l.contains("ChildFailedError"));
          assertThat(e.getMessage()).contains("crashtj", "cannot read /data/train.csv",
              "backoffLimit of its runtime's node Job").doesNotContain(".backoffLimit(n)");
        });
    System.out.println("[show] " + catchFailure(job).getMessage());
  }

  private static JobFailedException catchFailure(TrainingJob job) {
    try {
      job.waitForCompletion(Duration.ofSeconds(5));
      throw new AssertionError("the job did not fail");
    } catch (JobFailedException e) {
      return e;
    }
  }

  private LocalCluster cluster() {
    return LocalCluster.create().stateDir(state).volumesDir(volumes);
  }

  private static BuildContext context(String file, String script) {
    return BuildContext.empty().withFile(file, ContextFile.ofText(script))
        .withCommand(List.of("python", "-u", file));
  }

  private static Map<String, Map<String, String>> envs(TrainingJob job) throws Exception {
    Map<String, Map<String, String>> envs = new TreeMap<>();
    for (LogLine line : job.logs().snapshot()) {
      if (line.text().startsWith("ENV ")) {
        envs.put(line.replica(), JSON.readValue(line.text().substring(4),
            new TypeReference<Map<String, String>>() {}));
      }
    }
    return envs;
  }
}

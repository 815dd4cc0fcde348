package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A real two-replica PyTorch DDP run (gloo, a tiny model, a few steps) through the local cluster,
 * with Debian's torch under /usr/bin/python3: both ranks train and all_reduce, rank 0 saves the
 * model to the claim's mount path, which ends up in the claim's local directory and nowhere else.
 */
@Timeout(120)
class LocalClusterDdpIT extends LocalClusterTestBase {
  private static final String TRAIN = String.join("\n",
      "import os, time",
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
      "for step in range(5):",
      "    opt.zero_grad()",
      "    loss = ((model(x) - y) ** 2).mean()",
      "    loss.backward()",
      "    opt.step()",
      "    print(f'rank={rank} step={step} loss={loss.item():.4f}', flush=True)",
      "t = torch.tensor([float(rank + 1)])",
      "dist.all_reduce(t)",
      "print(f'rank={rank} world={world} all_reduce={t.item():.0f}', flush=True)",
      "if rank == 0:",
      "    torch.save(model.module.state_dict(), '/opt/mnist/models/model.pt')",
      "    print('saved /opt/mnist/models/model.pt', flush=True)",
      "dist.barrier()",
      "dist.destroy_process_group()",
      "");

  @BeforeAll
  static void torch() {
    Tools.torchPython();
  }

  @Test
  void twoRanksTrainAllReduceAndSaveTheModelToTheClaim() {
    assertThat(Path.of("/opt/mnist")).as("precondition: the host has no /opt/mnist")
        .doesNotExist();
    Map<String, Object> container = Manifests.container("pytorch",
        List.of("python", "-u", "/app/train.py"), Map.of(), 23456, "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("models", "/opt/mnist/models")));
    RenderedJob job = Manifests.pyTorchJob("ddp", 1, container, "OnFailure",
        Map.of("backoffLimit", 0), List.of(Manifests.pvcVolume("models", "traindb-models-claim")),
        null);
    BuildContext context = BuildContext.empty()
        .withFile("/app/train.py", ContextFile.ofText(TRAIN))
        .withCommand(List.of("python", "-u", "/app/train.py"));
    List<String> notes = new CopyOnWriteArrayList<>();
    List<String> followed = new CopyOnWriteArrayList<>();
    LocalCluster cluster = LocalCluster.create().stateDir(state).volumesDir(volumes);

    long started = System.nanoTime();
    TrainingJob handle = cluster.submit(job, context, SubmitOptions.DEFAULT, event -> {
      if (event instanceof ProgressEvent.Note note) {
        notes.add(note.message());
      }
    });
    JobStatus end;
    try (LogStream stream = handle.logs().follow(followed::add)) {
      end = handle.waitForCompletion(Duration.ofSeconds(90));
      assertThat(stream.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    System.out.println("[measure] 2-rank DDP job through LocalCluster: " + took.toMillis()
        + " ms (submit to Succeeded)");

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(notes).anyMatch(n -> n.contains("/usr/bin/python3") && n.contains("torch"));
    List<LogLine> lines = handle.logs().snapshot();
    assertThat(lines).anyMatch(l -> l.replica().equals("master-0")
        && l.text().equals("rank=0 world=2 all_reduce=3"));
    assertThat(lines).anyMatch(l -> l.replica().equals("worker-0")
        && l.text().equals("rank=1 world=2 all_reduce=3"));
    assertThat(followed).contains("[master-0] rank=0 world=2 all_reduce=3",
        "[worker-0] rank=1 world=2 all_reduce=3");
    assertThat(handle.logs().replica("worker").snapshot()).isNotEmpty()
        .allMatch(l -> l.replica().equals("worker-0"));
    Path model = volumes.resolve("traindb-models-claim/model.pt");
    assertThat(model).isRegularFile();
    assertThat(model.toFile().length()).isPositive();
    assertThat(Path.of("/opt/mnist")).as("nothing created on the host").doesNotExist();
    assertThat(Files.exists(Path.of("/app/train.py"))).isFalse();
  }

  private static final String WORLD = String.join("\n",
      "import logging, os, socket, sys",
      "import torch, torch.distributed as dist",
      "logging.basicConfig(level=logging.INFO, stream=sys.stderr)",
      "dist.init_process_group('gloo')",
      "t = torch.tensor([1.0])",
      "dist.all_reduce(t)",
      "print(f'rank={dist.get_rank()} world={dist.get_world_size()} sum={t.item():.0f}'"
          + " f' host={socket.gethostname()}', flush=True)",
      "dist.destroy_process_group()",
      "");

  /**
   * A job of Workers only, as upstream's elastic examples write it ({@code elasticPolicy} with
   * {@code maxRestarts}, no Master): the operator's environment is torchrun's PET_* variables
   * with the rendezvous on Worker 0 (OperatorEnvTest checks nothing else is there), and the two
   * Workers form one world through it. Each attempt's first run fails (torchrun's
   * {@code TORCHELASTIC_RESTART_COUNT} is 0): with {@code maxRestarts} 1, torchrun restarts the
   * workers, they rendezvous again and the job succeeds; with 0 it fails.
   */
  @ParameterizedTest(name = "maxRestarts {0}")
  @CsvSource({"1, SUCCEEDED", "0, FAILED"})
  void workersOnlyElasticJobsFormOneWorldAndRestartWithinMaxRestarts(int maxRestarts,
      JobPhase expected) {
    BuildContext context = BuildContext.empty()
        .withFile("/app/world.py", ContextFile.ofText(String.join("\n",
            "import os, sys",
            "print('env ' + ' '.join(f'{k}={os.environ.get(k)}' for k in ('PET_NNODES',"
                + " 'PET_MAX_RESTARTS', 'PET_RDZV_BACKEND')), flush=True)",
            "if os.environ['TORCHELASTIC_RESTART_COUNT'] == '0':",
            "    sys.exit('first attempt fails on purpose')",
            WORLD)))
        .withCommand(List.of("torchrun", "/app/world.py"));
    LocalCluster cluster = LocalCluster.create().stateDir(state).volumesDir(volumes);
    String name = "workers" + maxRestarts;
    TrainingJob job = Deployers.pyTorchJob(name).withoutMaster().workers(2)
        .elastic(2, 2, maxRestarts).restartPolicy(RestartPolicy.NEVER).on(cluster).asDeployer()
        .deploy(context, Optional.empty(), ProgressListener.NONE);
    JobStatus end;
    try {
      end = job.waitForCompletion(Duration.ofSeconds(120));
    } catch (dev.fairing4j.core.JobFailedException e) {
      end = e.status();
    }

    assertThat(end.phase()).as(job.logs().snapshot().toString()).isEqualTo(expected);
    List<String> lines = job.logs().snapshot().stream()
        .map(l -> "[" + l.replica() + "] " + l.text()).toList();
    assertThat(end.pods()).extracting(p -> p.name()).containsExactly(name + "-worker-0",
        name + "-worker-1");
    assertThat(lines).contains("[worker-0] env PET_NNODES=2:2 PET_MAX_RESTARTS=" + maxRestarts
        + " PET_RDZV_BACKEND=c10d");
    if (expected == JobPhase.SUCCEEDED) {
      assertThat(lines).contains("[worker-0] rank=0 world=2 sum=2 host=" + name + "-worker-0",
          "[worker-1] rank=1 world=2 sum=2 host=" + name + "-worker-1");
    } else {
      assertThat(lines).noneMatch(l -> l.contains(" world=2 sum=2"));
    }
  }

  /**
   * Elastic replicas through torchrun's c10d rendezvous form one world, as under the operator:
   * before, every replica had the same node identity (host name and, in its pid namespace, pid),
   * so with elastic(1, 2) each rendezvoused alone and trained as a world of size 1 while the job
   * succeeded, and elastic(2, 2) hung.
   */
  @ParameterizedTest(name = "elastic({0}, {1})")
  @CsvSource({"1, 2", "2, 2"})
  void elasticReplicasRendezvousIntoOneWorld(int min, int max) {
    BuildContext context = BuildContext.empty()
        .withFile("/app/world.py", ContextFile.ofText(WORLD))
        .withCommand(List.of("torchrun", "/app/world.py"));
    LocalCluster cluster = LocalCluster.create().stateDir(state).volumesDir(volumes);
    String name = "elastic" + min + max;
    TrainingJob job = Deployers.pyTorchJob(name).workers(1).elastic(min, max)
        .restartPolicy(RestartPolicy.NEVER).on(cluster).asDeployer()
        .deploy(context, Optional.empty(), ProgressListener.NONE);
    JobStatus end;
    try (LogStream logs = job.logs().follow(line -> { })) {
      end = job.waitForCompletion(Duration.ofSeconds(90));
      assertThat(logs.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    List<String> lines = job.logs().snapshot().stream()
        .map(l -> "[" + l.replica() + "] " + l.text()).toList();
    assertThat(lines).contains("[master-0] rank=0 world=2 sum=2 host=" + name + "-master-0",
        "[worker-0] rank=1 world=2 sum=2 host=" + name + "-worker-0");
    assertThat(lines).noneMatch(l -> l.contains("Address already in use"));
  }
}

package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.local.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed scenarios as {@code scripts/example.sh} runs them on this machine: real distributed
 * training on an 800-sample subset of FashionMNIST through {@code Clusters.local()}, and the
 * TensorFlow example's refusal where TensorFlow is missing.
 */
class ExamplesLocalIT {
  @TempDir Path state;
  @TempDir Path volumes;
  private LocalCluster cluster;

  @BeforeAll
  static void requireRealParts() {
    Tools.localTraining();
  }

  @BeforeEach
  void cluster() {
    cluster = Clusters.local().stateDir(state).volumesDir(volumes);
  }

  @Test
  void glooDemoTrainsOnFourRanksAndDescribesTheJob() {
    var run = ExamplesDryRunTest.run(cluster, "gloo-demo", "--samples", "800", "--quiet");

    assertThat(run.status()).as(run.err()).isZero();
    for (int rank = 0; rank < 4; rank++) {
      String replica = rank == 0 ? "master-0" : "worker-" + (rank - 1);
      assertThat(run.out()).contains("[" + replica + "] Using distributed PyTorch with gloo"
          + " backend, rank " + rank + " of 4");
    }
    // The job succeeds with its Master (the operator's rule); a Worker still tearing down then
    // may be stopped, so the Workers' counts are not asserted.
    assertThat(run.out()).containsPattern("pytorch-dist-mnist-gloo\\s+PyTorchJob\\s+Succeeded")
        .containsPattern("Master\\s+0\\s+1\\s+0")
        .containsPattern("pytorch-dist-mnist-gloo-master-0\\s+Succeeded")
        .contains("pytorch-dist-mnist-gloo-worker-2 ");
  }

  @Test
  void pytorchSimpleRunsInTheKubeflowNamespace() {
    var run = ExamplesDryRunTest.run(cluster, "pytorch-simple", "--samples", "800", "--quiet");

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("[worker-0] Using distributed PyTorch with gloo backend,"
        + " rank 1 of 2").containsPattern("\\[master-0\\] accuracy=0\\.\\d{4}");
    assertThat(cluster.list("kubeflow")).extracting(job -> job.name())
        .containsExactly(PytorchSimple.JOB);
  }

  @Test
  void pytorchTrainJobTrainsOnTwoNodesThroughTorchrunUnchanged() {
    var run = ExamplesDryRunTest.run(cluster, "pytorch-trainjob", "--samples", "800", "--quiet");

    assertThat(run.status()).as(run.err()).isZero();
    // The same script as pytorch-simple: torchrun turns the torch plugin's PET_* into RANK...
    assertThat(run.out()).contains("[node-0] Using distributed PyTorch with gloo backend,"
        + " rank 0 of 2", "[node-1] Using distributed PyTorch with gloo backend, rank 1 of 2")
        .containsPattern("\\[node-0\\] accuracy=0\\.\\d{4}")
        .containsPattern("pytorch-simple\\s+TrainJob\\s+Succeeded")
        .containsPattern("pytorch-simple-node-0-0\\s+Succeeded")
        .containsPattern("pytorch-simple-node-0-1\\s+Succeeded");
    assertThat(cluster.list("kubeflow")).extracting(job -> job.name())
        .containsExactly(PytorchTrainJob.JOB);
  }

  @Test
  void tfMultiworkerSaysItNeedsTensorFlowAndStartsNothing() {
    var run = ExamplesDryRunTest.run(cluster, "tf-multiworker", "--quiet");

    assertThat(run.status()).isEqualTo(Examples.FAILED);
    assertThat(run.err()).startsWith(TfMultiworker.NEEDS_TENSORFLOW + ": no Python interpreter"
        + " on this machine can import tensorflow").contains("--dry-run");
    assertThat(cluster.listAll()).isEmpty();
  }

  @Test
  void traindbSavesTheModelOnTheClaimShowsTheLogsAndDeletesTheJob() {
    var run = ExamplesDryRunTest.run(cluster, "traindb-mnist", "--samples", "800", "--quiet");

    assertThat(run.status()).as(run.err()).isZero();
    Path model = volumes.resolve(FashionMnist.MODELS_CLAIM).resolve("mnist_cnn.pt");
    assertThat(model).isRegularFile();
    String logs = run.out().substring(run.out().indexOf("logs of " + TraindbMnist.JOB + ":"));
    assertThat(logs).contains("[master-0] saved model to /opt/mnist/models/mnist_cnn.pt",
        "[worker-0] Using distributed PyTorch with gloo backend, rank 1 of 2",
        "model saved to " + model, "deleted PyTorchJob " + TraindbMnist.JOB + " and its pods");
    assertThat(cluster.listAll()).isEmpty();
  }

  @Test
  void arenaDistTakesItsCodeFromGitAndItsDataFromTheClaim(@TempDir Path repo) throws Exception {
    // A repository of our own, whose script says where it came from, proves the code is synced.
    String script = Files.readString(ExampleScripts.extract(FashionMnist.SCRIPT))
        .replace("def main():\n", "def main():\n    print('synced from the test repository',"
            + " flush=True)\n");
    Files.writeString(repo.resolve(FashionMnist.SCRIPT), script);
    PersonIdent author = new PersonIdent("test", "test@example.com",
        Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    try (Git git = Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call()) {
      git.add().addFilepattern(FashionMnist.SCRIPT).call();
      git.commit().setMessage("script").setAuthor(author).setCommitter(author).setSign(false)
          .call();
    }

    var run = ExamplesDryRunTest.run(cluster, "arena-dist", "--samples", "800", "--quiet",
        "--git-url", repo.toUri().toString());

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("LocalCluster.ignoreGpuRequests()",
        "[master-0] synced from the test repository", "[worker-1] synced from the test repository",
        "[worker-1] Using distributed PyTorch with gloo backend, rank 2 of 3");
    assertThat(run.out()).contains("$ arena list", "$ arena top node", "GPU(Allocated)")
        .containsPattern("pytorch-dist\\s+Succeeded\\s+PyTorchJob")
        .containsPattern("pytorch-dist-worker-1\\s+\\w+")
        .containsPattern("\\[worker-1\\] .+");
    assertThat(volumes.resolve(ArenaDist.DATA_CLAIM).resolve("train-images-idx3-ubyte.gz"))
        .hasSameBinaryContentAs(ArenaDist.HOST_DATA.resolve("train-images-idx3-ubyte.gz"));
  }
}

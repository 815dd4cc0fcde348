package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.local.LocalCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main job through the front door on the local cluster: a real 2-replica DDP run of
 * the seed network on a 2,000-sample subset of FashionMNIST.
 */
class FashionMnistLocalIT {
  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void requireRealParts() {
    Tools.localTraining();
  }

  @Test
  void bothRanksTrainAndTheModelLandsOnTheClaimVolume() {
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);
    FashionMnist settings = new FashionMnist("fashion-mnist-it", 1, 2000, 1000, 1);
    List<String> lines = new CopyOnWriteArrayList<>();

    TrainingJob job = settings.pipeline(cluster).progress(ProgressListener.NONE).run();
    JobStatus end;
    try (LogStream logs = job.logs().follow(lines::add)) {
      end = job.waitForCompletion(Duration.ofMinutes(5));
      assertThat(logs.awaitEnd(Duration.ofSeconds(30))).isTrue();
    }

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(lines).anyMatch(l -> l.startsWith("[master-0] Train Epoch: 1 ["));
    assertThat(lines).anyMatch(l -> l.startsWith("[worker-0] Train Epoch: 1 ["));
    assertThat(lines).anyMatch(l -> l.matches("\\[master-0\\] accuracy=0\\.\\d{4}"));
    assertThat(lines).noneMatch(l -> l.startsWith("[worker-0] accuracy="));
    assertThat(lines).anyMatch(l -> l.equals("[master-0] Using distributed PyTorch with gloo"
        + " backend, rank 0 of 2"));
    assertThat(lines).anyMatch(l -> l.equals("[worker-0] Using distributed PyTorch with gloo"
        + " backend, rank 1 of 2"));
    Path model = volumes.resolve(FashionMnist.MODELS_CLAIM).resolve("mnist_cnn.pt");
    assertThat(cluster.claimDir(FashionMnist.MODELS_CLAIM).resolve("mnist_cnn.pt"))
        .isEqualTo(model);
    assertThat(model).isRegularFile();
    assertThat(model.toFile().length()).isGreaterThan(1_000_000L);
  }

  @Test
  void theDemoPrintsTheMetricsAndSavesTheirPlotNextToTheModel() throws Exception {
    // FashionMnistDemo.run prints to System.out, as scripts/demo.sh shows it.
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);
    FashionMnist settings = new FashionMnist("fashion-mnist-demo", 1, 2000, 1000, 1);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = System.out;
    boolean succeeded;
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      succeeded = FashionMnistDemo.run(settings, cluster, ProgressListener.NONE);
    } finally {
      System.setOut(out);
    }
    String printed = bytes.toString(StandardCharsets.UTF_8);

    assertThat(succeeded).as(printed).isTrue();
    assertThat(printed).containsPattern("REPLICA\\s+EPOCH\\s+PROGRESS\\s+loss\\s+accuracy")
        .containsPattern("master-0\\s+1\\s+\\d+%\\s+\\d\\.\\d+\\s+0\\.\\d+");
    Path plot = volumes.resolve(FashionMnist.MODELS_CLAIM)
        .resolve("fashion-mnist-demo-metrics.png");
    assertThat(printed).contains("loss and accuracy curves saved to " + plot);
    assertThat(ImageIO.read(plot.toFile()).getWidth()).isEqualTo(800);
  }

  @Test
  void dryRunShowsThePyTorchJobWithoutRunningAnything() {
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);

    String yaml = new FashionMnist("fashion-mnist-dry", 1, 2000, 0, 1).pipeline(cluster).dryRun();

    assertThat(yaml).contains("kind: PyTorchJob", "name: fashion-mnist-dry", "Master:",
        "Worker:", "\"--samples=2000\"", "claimName: traindb-models-claim",
        "mountPath: /opt/mnist/models", "image: fairing4j.local/context:");
    assertThat(cluster.listAll()).isEmpty();
  }
}

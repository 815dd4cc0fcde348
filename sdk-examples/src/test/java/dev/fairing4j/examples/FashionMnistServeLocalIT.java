package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.EndpointNotReadyException;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.PredictionException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.local.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 000 end to end on the local cluster, as a notebook user writes it: the FashionMNIST job
 * trains and saves {@code mnist_cnn.pt} on {@code traindb-models-claim}; {@code serve()} of the
 * bundled predictor ({@code mnist_predictor.py}, which imports the training script's network)
 * with {@code Deployers.serving(..)} serves that model from the same claim, two replicas each on
 * its own port; the test images the training evaluated on, sent as pixel values through
 * {@code endpoint.predict(..)}, are classified as accurately as the training printed (to one
 * image: the server runs them as one batch, the training in batches of 100). And a server the
 * kernel kills while loading ends the wait at once with its last words.
 */
@Timeout(600)
class FashionMnistServeLocalIT {
  private static final int TEST_IMAGES = 500;

  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void requireRealParts() {
    Tools.localTraining();
  }

  @Test
  void theTrainedModelServedFromItsClaimClassifiesAsAccuratelyAsTheTrainingMeasured() {
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);
    TrainingJob training = new FashionMnist("traindb-serve", 1, 6000, TEST_IMAGES, 1)
        .pipeline(cluster).progress(ProgressListener.NONE).run();
    double trained;
    try {
      assertThat(training.waitForCompletion(Duration.ofMinutes(5)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      trained = training.logs().snapshot().stream().map(LogLine::text)
          .filter(l -> l.startsWith("accuracy=")).map(l -> Double.parseDouble(l.substring(9)))
          .reduce((first, last) -> last).orElseThrow();
    } finally {
      training.delete();
    }

    Endpoint endpoint = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(FashionMnist.predictor())
        .deployer(FashionMnist.servingDeployer("traindb-predictor").replicas(2).on(cluster))
        .serve();
    try {
      assertThat(endpoint.waitUntilReady(Duration.ofMinutes(2)).readyReplicas()).isEqualTo(2);
      assertThat(endpoint.url()).startsWith("http://127.0.0.1:")
          .endsWith("/v1/models/mnist:predict");

      FashionMnistTestSet test = FashionMnistTestSet.read(Tools.fashionMnist(), TEST_IMAGES);
      List<Object> predictions = endpoint.predict(test.images());
      assertThat(predictions).hasSize(TEST_IMAGES);
      double served = test.accuracy(predictions);
      System.out.printf("FashionMnistServeLocalIT: trained accuracy %.4f, served %.4f%n",
          trained, served);
      assertThat(Math.abs(served - trained)).as("served %s against trained %s", served, trained)
          .isLessThanOrEqualTo(1.0 / TEST_IMAGES + 1e-9);
      assertThat(trained).as("better than guessing one class in ten").isGreaterThan(0.25);

      // As a notebook after a kernel restart finds it: a row of its own, not a training job.
      TrainingClient client = TrainingClient.connect(cluster);
      assertThat(client.endpoints().toString()).contains("traindb-predictor", "Deployment",
          "Ready", "2/2", endpoint.url());
      assertThat(client.list().jobs()).isEmpty();
      assertThat(client.attachEndpoint("traindb-predictor").predict(test.images().subList(0, 3)))
          .isEqualTo(predictions.subList(0, 3));

      assertThatThrownBy(() -> endpoint.predict(List.of(List.of(1, 2, 3))))
          .isInstanceOfSatisfying(PredictionException.class, e -> {
            assertThat(e.httpStatus()).contains(500);
            assertThat(e.getMessage()).contains("784 pixel values");
          });
      assertThat(endpoint.logs().snapshot()).extracting(LogLine::text)
          .anyMatch(l -> l.equals("INFO mnist_predictor loaded /opt/mnist/models/mnist_cnn.pt"
              + " on cpu"));
    } finally {
      endpoint.delete();
    }
    assertThat(TrainingClient.connect(cluster).list().jobs()).as("the endpoint is gone")
        .isEmpty();
  }

  @Test
  void aServerKilledWhileLoadingFailsTheWaitAtOnceWithItsLastWords(@TempDir Path dir)
      throws IOException {
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);
    // What the kernel's OOM killer does to a model too big for the machine: SIGKILL while
    // loading, every time the server restarts.
    Path predictor = Files.writeString(dir.resolve("huge.py"), """
        import logging, os, signal, sys
        logging.basicConfig(stream=sys.stderr, level=logging.INFO)

        class Huge:
            def load(self):
                logging.info("loading 80 GB of weights")
                os.kill(os.getpid(), signal.SIGKILL)
            def predict(self, instances):
                return instances
        """);
    Endpoint endpoint = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.predictor(predictor))
        .deployer(Deployers.serving("huge").on(cluster))
        .serve();
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> endpoint.waitUntilReady(Duration.ofMinutes(2)))
          .isInstanceOfSatisfying(EndpointNotReadyException.class, e -> {
            assertThat(e.timedOut()).isFalse();
            assertThat(e.getMessage()).contains("pod huge-predictor-0 is CrashLoopBackOff",
                "exit code 137", "INFO:root:loading 80 GB of weights");
          });
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
    } finally {
      endpoint.delete();
    }
  }
}

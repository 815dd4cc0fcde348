package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.local.LocalCluster;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 000 end to end on the local cluster: the FashionMNIST job trains and saves
 * {@code mnist_cnn.pt} on {@code traindb-models-claim}; the bundled predictor
 * ({@code mnist_predictor.py}, which imports the training script's network) serves that model
 * from the same claim; the test images the training evaluated on, sent as pixel values, are
 * classified as accurately as the training printed (to one image: the server runs them as one
 * batch, the training in batches of 100).
 */
@Timeout(600)
class FashionMnistServeLocalIT {
  private static final int TEST_IMAGES = 500;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void requireRealParts() {
    Tools.require("bwrap", "bubblewrap");
    Tools.torchPython();
    Tools.fashionMnist();
  }

  @Test
  void theTrainedModelServedFromItsClaimClassifiesAsAccuratelyAsTheTrainingMeasured()
      throws Exception {
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

    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    TrainingJob server = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(FashionMnist.predictor().env("PORT", String.valueOf(port)))
        .deployer(Deployers.batchJob("traindb-predictor")
            .mutate(Mutators.pvc(FashionMnist.MODELS_CLAIM, FashionMnist.MODELS_PATH))
            .on(cluster))
        .run();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    String base = "http://127.0.0.1:" + port + "/v1/models/mnist";
    try {
      ClusterKit.await("the predictor to load the trained model", Duration.ofMinutes(2), () -> {
        try {
          return http.send(HttpRequest.newBuilder(URI.create(base)).build(),
              HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
        } catch (IOException e) {
          return false;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }, () -> server.logs().snapshot().toString());

      Path data = Tools.fashionMnist();
      int[][] images = images(data.resolve("t10k-images-idx3-ubyte.gz"), TEST_IMAGES);
      int[] labels = labels(data.resolve("t10k-labels-idx1-ubyte.gz"), TEST_IMAGES);
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(base
          + ":predict")).POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(
          java.util.Map.of("instances", images)))).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      JsonNode predictions = JSON.readTree(answer.body()).get("predictions");
      assertThat(predictions.size()).isEqualTo(TEST_IMAGES);
      int correct = 0;
      for (int i = 0; i < TEST_IMAGES; i++) {
        correct += predictions.get(i).asInt() == labels[i] ? 1 : 0;
      }
      double served = correct / (double) TEST_IMAGES;
      System.out.printf("FashionMnistServeLocalIT: trained accuracy %.4f, served %.4f (%d of %d)%n",
          trained, served, correct, TEST_IMAGES);
      assertThat(Math.abs(served - trained)).as("served %s against trained %s", served, trained)
          .isLessThanOrEqualTo(1.0 / TEST_IMAGES + 1e-9);
      assertThat(trained).as("better than guessing one class in ten").isGreaterThan(0.25);

      HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(URI.create(base
          + ":predict")).POST(HttpRequest.BodyPublishers.ofString("{\"instances\": [[1, 2, 3]]}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(wrong.statusCode()).isEqualTo(500);
      assertThat(wrong.body()).contains("784 pixel values");
      assertThat(server.logs().snapshot().stream().map(LogLine::text))
          .anyMatch(l -> l.equals("INFO mnist_predictor loaded /opt/mnist/models/mnist_cnn.pt"
              + " on cpu"));
    } finally {
      server.delete();
    }
  }

  /** The first {@code count} images of an IDX file, each as 784 pixel values. */
  private static int[][] images(Path file, int count) throws IOException {
    try (DataInputStream in = idx(file, 3)) {
      int total = in.readInt();
      int rows = in.readInt();
      int cols = in.readInt();
      assertThat(total).isGreaterThanOrEqualTo(count);
      int[][] images = new int[count][rows * cols];
      for (int[] image : images) {
        for (int p = 0; p < image.length; p++) {
          image[p] = in.readUnsignedByte();
        }
      }
      return images;
    }
  }

  private static int[] labels(Path file, int count) throws IOException {
    try (DataInputStream in = idx(file, 1)) {
      in.readInt();
      int[] labels = new int[count];
      for (int i = 0; i < count; i++) {
        labels[i] = in.readUnsignedByte();
      }
      return labels;
    }
  }

  private static DataInputStream idx(Path file, int dims) throws IOException {
    InputStream raw = new GZIPInputStream(Files.newInputStream(file));
    DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(raw));
    int magic = in.readInt();
    assertThat(magic & 0xFF).as("dimensions of " + file).isEqualTo(dims);
    return in;
  }
}

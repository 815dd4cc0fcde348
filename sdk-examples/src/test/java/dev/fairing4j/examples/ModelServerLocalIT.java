package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A predictor written as PyTorch users write one (logging to stderr, a device chosen by
 * {@code torch.cuda.is_available()}, a tensor returned), packaged by
 * {@code Preprocessors.predictor(..)} and run on the local cluster: the model server reports
 * not ready while the model loads, answers V1 predictions that match what the model computes and
 * V2 infer requests with their shape, reads a chunked body as a proxy sends one, answers an error
 * in the user's code with 500 and its message (the traceback in the job's logs) and a bad request
 * with 400; a predictor that fails to load keeps the endpoint not ready and says why; deleting
 * the job stops the server.
 */
@Timeout(180)
class ModelServerLocalIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREDICTOR = """
      import logging, os, sys, time
      import torch
      from torch import nn

      logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                          format="%(levelname)s %(name)s %(message)s")
      log = logging.getLogger("predictor")


      class LinearModel:
          def load(self):
              self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
              time.sleep(float(os.environ.get("LOAD_SECONDS", "0")))
              self.net = nn.Linear(2, 1).to(self.device)
              with torch.no_grad():
                  self.net.weight.copy_(torch.tensor([[2.0, -1.0]]))
                  self.net.bias.fill_(0.5)
              self.net.eval()
              log.info("model ready on %s", self.device)

          def predict(self, instances):
              x = torch.tensor(instances, dtype=torch.float32, device=self.device)
              if x.dim() != 2 or x.shape[1] != 2:
                  raise ValueError(f"expected rows of 2 features, got shape {tuple(x.shape)}")
              with torch.no_grad():
                  return self.net(x).squeeze(1).cpu()
      """;

  @TempDir Path dir;
  @TempDir Path state;
  @TempDir Path volumes;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
    Tools.torchPython();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private TrainingJob serve(Path predictor, int port, String loadSeconds) {
    return Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.predictor(predictor).modelName("linear")
            .env("PORT", String.valueOf(port)).env("LOAD_SECONDS", loadSeconds))
        .deployer(Deployers.batchJob("linear-serve").on(Clusters.local().stateDir(state)
            .volumesDir(volumes)))
        .run();
  }

  /** The status code and body, or -1 while nothing listens. */
  private Answer call(String method, int port, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + path)).timeout(Duration.ofSeconds(10));
    request = body == null ? request.GET() : request.method(method,
        HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
    try {
      HttpResponse<String> response = http.send(request.build(),
          HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response.body());
    } catch (ConnectException refused) {
      return new Answer(-1, "");
    }
  }

  private record Answer(int status, String body) {
    JsonNode json() throws IOException {
      return JSON.readTree(body);
    }
  }

  private List<Integer> awaitReady(TrainingJob job, int port) throws Exception {
    List<Integer> seen = new ArrayList<>();
    long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < end) {
      Answer answer = call("GET", port, "/v1/models/linear", null);
      if (seen.isEmpty() || seen.get(seen.size() - 1) != answer.status()) {
        seen.add(answer.status());
      }
      if (answer.status() == 200) {
        return seen;
      }
      assertThat(job.status().phase()).as("the server's job").isNotEqualTo(JobPhase.FAILED);
      Thread.sleep(200);
    }
    throw new AssertionError("not ready within 90 s; answers seen: " + seen + "; logs: "
        + job.logs().snapshot());
  }

  @Test
  void aTorchPredictorAnswersV1AndV2AndReportsErrors() throws Exception {
    Path predictor = Files.writeString(dir.resolve("linear_predictor.py"), PREDICTOR);
    int port = freePort();
    TrainingJob job = serve(predictor, port, "3");
    try {
      List<Integer> seen = awaitReady(job, port);
      assertThat(seen).as("not ready while the model loads, then ready").contains(503)
          .endsWith(200);
      assertThat(call("GET", port, "/v1/models/linear", null).json().get("ready").asBoolean())
          .isTrue();

      Answer predicted = call("POST", port, "/v1/models/linear:predict",
          "{\"instances\": [[1, 2], [3, 1], [0.5, 0.25]]}");
      assertThat(predicted.status()).isEqualTo(200);
      JsonNode predictions = predicted.json().get("predictions");
      // 2*x0 - x1 + 0.5, as the model's weights say
      assertThat(predictions.get(0).asDouble()).isCloseTo(0.5, within(1e-6));
      assertThat(predictions.get(1).asDouble()).isCloseTo(5.5, within(1e-6));
      assertThat(predictions.get(2).asDouble()).isCloseTo(1.25, within(1e-6));

      // A body of unknown length goes chunked, as the API server's proxy forwards one.
      HttpResponse<String> chunked = http.send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + port + "/v1/models/linear:predict")).POST(
          HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofString(
              "{\"instances\": [[3, 1]]}"))).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(chunked.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(chunked.body()).get("predictions").get(0).asDouble())
          .isCloseTo(5.5, within(1e-6));

      Answer infer = call("POST", port, "/v2/models/linear/infer", "{\"id\": \"r1\", \"inputs\":"
          + " [{\"name\": \"x\", \"shape\": [2, 2], \"datatype\": \"FP32\", \"data\": [1, 2, 3,"
          + " 1]}]}");
      assertThat(infer.status()).isEqualTo(200);
      JsonNode output = infer.json().get("outputs").get(0);
      assertThat(output.get("shape").toString()).isEqualTo("[2]");
      assertThat(output.get("datatype").asText()).isEqualTo("FP32");
      assertThat(output.get("data").get(1).asDouble()).isCloseTo(5.5, within(1e-6));
      assertThat(infer.json().get("id").asText()).isEqualTo("r1");
      assertThat(call("GET", port, "/v2/health/ready", null).status()).isEqualTo(200);

      Answer userError = call("POST", port, "/v1/models/linear:predict",
          "{\"instances\": [1, 2, 3]}");
      assertThat(userError.status()).isEqualTo(500);
      assertThat(userError.json().get("error").asText())
          .isEqualTo("ValueError: expected rows of 2 features, got shape (3,)");
      Answer badRequest = call("POST", port, "/v1/models/linear:predict", "{\"inputs\": [1]}");
      assertThat(badRequest.status()).isEqualTo(400);
      assertThat(badRequest.json().get("error").asText()).contains("\"instances\"");
      assertThat(call("GET", port, "/v1/models/other", null).status()).isEqualTo(404);

      ClusterKit.await("the traceback and the model's own log line in the job's logs",
          Duration.ofSeconds(10), () -> {
            List<String> lines = job.logs().snapshot().stream().map(l -> l.text()).toList();
            return lines.contains("ValueError: expected rows of 2 features, got shape (3,)")
                && lines.contains("INFO predictor model ready on cpu");
          }, () -> job.logs().snapshot().toString());
      assertThat(job.status().phase()).isEqualTo(JobPhase.RUNNING);
    } finally {
      job.delete();
    }
    assertThat(call("GET", port, "/v1/models/linear", null).status())
        .as("nothing listens after delete()").isEqualTo(-1);
  }

  @Test
  void aPredictorThatFailsToLoadStaysNotReadyAndSaysWhy() throws Exception {
    Path predictor = Files.writeString(dir.resolve("broken_predictor.py"), """
        import torch

        class Broken:
            def load(self):
                self.net = torch.load("/mnt/models/missing.pt")

            def predict(self, instances):
                return instances
        """);
    int port = freePort();
    TrainingJob job = serve(predictor, port, "0");
    try {
      ClusterKit.await("the readiness answer to name the load failure", Duration.ofSeconds(90),
          () -> {
            try {
              Answer answer = call("GET", port, "/v1/models/linear", null);
              return answer.status() == 503 && answer.body().contains("error");
            } catch (Exception e) {
              return false;
            }
          }, () -> job.logs().snapshot().toString());
      Answer readiness = call("GET", port, "/v1/models/linear", null);
      assertThat(readiness.json().get("ready").asBoolean()).isFalse();
      assertThat(readiness.json().get("error").asText()).startsWith("FileNotFoundError")
          .contains("/mnt/models/missing.pt");
      Answer predict = call("POST", port, "/v1/models/linear:predict",
          "{\"instances\": [[1, 2]]}");
      assertThat(predict.status()).isEqualTo(503);
      assertThat(predict.json().get("error").asText()).contains("is not ready")
          .contains("FileNotFoundError");
      assertThat(job.logs().snapshot().stream().map(l -> l.text()))
          .anyMatch(line -> line.contains("failed to load"));
    } finally {
      job.delete();
    }
  }
}

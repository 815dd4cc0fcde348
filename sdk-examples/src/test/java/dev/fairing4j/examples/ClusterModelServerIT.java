package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.deployer.Deployers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A torch predictor packaged by {@code Preprocessors.predictor(..)}, built by Jib on the torch
 * base, pushed to the kit's registry and run in a real pod, reached the way a caller without an
 * ingress reaches it: through the API server's proxy (here to the pod, {@code kubectl get --raw}
 * and {@code create --raw}, whose body the proxy forwards chunked). Readiness, a V1 prediction
 * checked against the model's weights, and a predictor error answered with 500 and logged.
 */
@Tag(Tags.CLUSTER)
class ClusterModelServerIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static ClusterKit kit;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
  }

  @Test
  void aPredictorImageServesV1ThroughTheApiServersProxy(@TempDir Path dir) throws Exception {
    Path predictor = Files.writeString(dir.resolve("linear_predictor.py"), """
        import logging, sys
        import torch
        from torch import nn

        logging.basicConfig(stream=sys.stderr, level=logging.INFO)


        class LinearModel:
            def load(self):
                self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
                self.net = nn.Linear(2, 1).to(self.device)
                with torch.no_grad():
                    self.net.weight.copy_(torch.tensor([[2.0, -1.0]]))
                    self.net.bias.fill_(0.5)
                logging.getLogger("predictor").info("loaded on %s", self.device)

            def predict(self, instances):
                x = torch.tensor(instances, dtype=torch.float32, device=self.device)
                if x.dim() != 2 or x.shape[1] != 2:
                    raise ValueError(f"expected rows of 2 features, got {tuple(x.shape)}")
                with torch.no_grad():
                    return self.net(x).squeeze(1).cpu()
        """);
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.predictor(predictor).modelName("linear"))
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository("predictor")))
        .deployer(Deployers.batchJob("predictor-serve").namespace(kit.namespace())
            .replaceExisting().on(kit.cluster()))
        .run();
    try {
      String namespace = kit.namespace();
      String[] pod = new String[1];
      ClusterKit.await("the predictor's pod to answer ready through the proxy",
          Duration.ofMinutes(3), () -> {
            List<String> pods = kit.names("pods", namespace, "job-name=predictor-serve");
            if (pods.isEmpty()) {
              return false;
            }
            pod[0] = pods.get(0);
            try {
              return kit.kubectl("get", "--raw", proxy(namespace, pod[0],
                  "/v1/models/linear")).contains("\"ready\": true");
            } catch (AssertionError notYet) {
              return false;  // 503 while loading, or the pod not running yet
            }
          }, () -> kit.kubectl("get", "pods", "-n", namespace, "-o", "wide"));

      Path body = Files.writeString(dir.resolve("request.json"),
          "{\"instances\": [[1, 2], [3, 1]]}");
      JsonNode predictions = JSON.readTree(kit.kubectl("create", "--raw", proxy(namespace,
          pod[0], "/v1/models/linear:predict"), "-f", body.toString())).get("predictions");
      assertThat(predictions.get(0).asDouble()).isCloseTo(0.5, within(1e-6));
      assertThat(predictions.get(1).asDouble()).isCloseTo(5.5, within(1e-6));

      Path wrong = Files.writeString(dir.resolve("wrong.json"), "{\"instances\": [1, 2, 3]}");
      assertThat(kit.run(List.of("create", "--raw", proxy(namespace, pod[0],
          "/v1/models/linear:predict"), "-f", wrong.toString())).output())
          .as("kubectl shows a 500 as InternalError, without its body")
          .contains("InternalError");
      assertThat(job.logs().snapshot().stream().map(l -> l.text()))
          .anyMatch(line -> line.contains("INFO:predictor:loaded on cpu"))
          .anyMatch(line -> line.contains("ValueError: expected rows of 2 features"));
    } finally {
      job.delete();
    }
  }

  private static String proxy(String namespace, String pod, String path) {
    return "/api/v1/namespaces/" + namespace + "/pods/" + pod + ":8080/proxy" + path;
  }
}

package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.EndpointDeployer;
import dev.fairing4j.core.EndpointNotReadyException;
import dev.fairing4j.core.EndpointStatus;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.PredictionException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.TrainingClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Deployers.serving(..)} on a real cluster: a torch predictor packaged by
 * {@code Preprocessors.predictor(..)}, built by Jib on the torch base, pushed to the kit's
 * registry, served by a Deployment of two replicas behind a Service, and reached the way a caller
 * without an ingress reaches it: {@code endpoint.predict(..)} through the API server's service
 * proxy. Readiness from the server's readiness path, predictions checked against the model's
 * weights, a predictor error answered as a {@link PredictionException} with its message and
 * logged, a model that fails to load and an image that does not pull reported at once, and
 * deletion of everything.
 */
@Tag(Tags.CLUSTER)
class ClusterServingIT {
  private static final String PREDICTOR = """
      import logging, os, sys
      import torch
      from torch import nn

      logging.basicConfig(stream=sys.stderr, level=logging.INFO)


      class LinearModel:
          def load(self):
              self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
              self.net = nn.Linear(2, 1).to(self.device)
              path = os.environ.get("MODEL_PATH")
              if path:
                  self.net.load_state_dict(torch.load(path, map_location=self.device))
              else:
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
      """;

  private static ClusterKit kit;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
  }

  @Test
  void aServedPredictorAnswersThroughTheServiceProxyAndIsDeletedWithItsService(
      @TempDir Path dir) throws Exception {
    Endpoint endpoint = pipeline(dir, Deployers.serving("linear-serve").replicas(2)
        .namespace(kit.namespace()).replaceExisting().on(kit.cluster())).serve();
    try {
      EndpointStatus ready = endpoint.waitUntilReady(Duration.ofMinutes(3));
      assertThat(ready.readyReplicas()).isEqualTo(2);
      assertThat(ready.pods()).hasSize(2).allMatch(p -> p.phase().equals("Running"));
      assertThat(endpoint.url()).isEqualTo("http://linear-serve." + kit.namespace()
          + ".svc.cluster.local/v1/models/linear:predict");
      assertThat(endpoint.toText()).contains("Deployment " + kit.namespace()
          + "/linear-serve", "Ready", "2/2");

      TrainingClient client = TrainingClient.connect(kit.cluster()).inNamespace(kit.namespace());
      assertThat(client.endpoints().toString()).contains("linear-serve", "Deployment", "Ready",
          "2/2", endpoint.url());
      Endpoint attached = client.attachEndpoint("linear-serve");
      assertThat(attached.modelName()).isEqualTo("linear");

      List<Object> predictions = attached.predict(List.of(List.of(1, 2), List.of(3, 1)));
      assertThat(((Number) predictions.get(0)).doubleValue()).isCloseTo(0.5, within(1e-6));
      assertThat(((Number) predictions.get(1)).doubleValue()).isCloseTo(5.5, within(1e-6));
      assertThat(endpoint.predict("{\"instances\": [[0, 0]]}"))
          .contains("\"predictions\"").contains("0.5");

      assertThatThrownBy(() -> endpoint.predict("{\"instances\": [1, 2, 3]}"))
          .isInstanceOfSatisfying(PredictionException.class, e -> {
            assertThat(e.httpStatus()).contains(500);
            assertThat(e.serverError()).hasValueSatisfying(m -> assertThat(m)
                .contains("ValueError: expected rows of 2 features, got (3,)"));
          });
      assertThat(endpoint.logs().snapshot())
          .anyMatch(line -> line.text().contains("INFO:predictor:loaded on cpu"))
          .anyMatch(line -> line.text().contains("ValueError: expected rows of 2 features"))
          .extracting(line -> line.replica()).contains("predictor-0", "predictor-1");
    } finally {
      endpoint.delete();
    }
    assertThat(kit.names("deployments", kit.namespace(), "fairing4j.dev/job-name=linear-serve"))
        .isEmpty();
    assertThat(kit.names("services", kit.namespace(), "fairing4j.dev/job-name=linear-serve"))
        .isEmpty();
    assertThat(kit.names("pods", kit.namespace(), "fairing4j.dev/job-name=linear-serve"))
        .isEmpty();
  }

  @Test
  void aModelThatFailsToLoadFailsTheWaitAtOnceWithTheServersReason(@TempDir Path dir)
      throws Exception {
    Endpoint endpoint = pipeline(dir, Deployers.serving("linear-broken")
        .env("MODEL_PATH", "/models/missing/linear.pt")
        .namespace(kit.namespace()).replaceExisting().on(kit.cluster())).serve();
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> endpoint.waitUntilReady(Duration.ofMinutes(5)))
          .isInstanceOfSatisfying(EndpointNotReadyException.class, e -> {
            assertThat(e.timedOut()).isFalse();
            assertThat(e.getMessage()).contains("the model linear failed to load on pod",
                "FileNotFoundError", "/models/missing/linear.pt");
          });
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("reported, not timed out")
          .isLessThan(Duration.ofMinutes(3));
      assertThat(endpoint.status().problem()).hasValueSatisfying(p -> assertThat(p)
          .contains("FileNotFoundError"));
    } finally {
      endpoint.delete();
    }
  }

  @Test
  void anImageThatDoesNotPullFailsTheWaitWithThePodsReasonAndTheImage(@TempDir Path dir)
      throws Exception {
    Path predictor = Files.writeString(dir.resolve("linear_predictor.py"), PREDICTOR);
    // The steps a pipeline calls, given an image that was never pushed.
    EndpointDeployer steps = (EndpointDeployer) Deployers.serving("linear-nopull")
        .namespace(kit.namespace()).replaceExisting().on(kit.cluster()).asDeployer();
    Endpoint endpoint = steps.serve(Preprocessors.predictor(predictor).modelName("linear")
        .prepare(), Optional.of(ImageRef.parse(ClusterKit.repository("never-pushed") + ":1")),
        ProgressListener.NONE);
    try {
      assertThatThrownBy(() -> endpoint.waitUntilReady(Duration.ofMinutes(5)))
          .isInstanceOfSatisfying(EndpointNotReadyException.class, e -> {
            assertThat(e.timedOut()).isFalse();
            assertThat(e.getMessage()).contains("ImagePullBackOff", "never-pushed:1");
            assertThat(e.hint()).hasValueSatisfying(h -> assertThat(h).contains("pull"));
          });
    } finally {
      endpoint.delete();
    }
  }

  @Test
  void aModelTooBigForItsPodIsOomKilledAndFailsTheWaitWithItsLastWords(@TempDir Path dir)
      throws Exception {
    // A model that does not fit the pod's memory limit: the kernel's OOM killer ends the
    // server while it loads, every time kubelet restarts it.
    Path predictor = Files.writeString(dir.resolve("huge_predictor.py"), """
        import logging, sys
        logging.basicConfig(stream=sys.stderr, level=logging.INFO)

        class Huge:
            def load(self):
                logging.info("loading 1 GiB of weights")
                self.weights = b"w" * (1 << 30)
            def predict(self, instances):
                return instances
        """);
    Endpoint endpoint = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.predictor(predictor))
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository("predictor")))
        .deployer(Deployers.serving("huge-serve").mutate(Mutators.resources("100m", "128Mi"))
            .namespace(kit.namespace()).replaceExisting().on(kit.cluster()))
        .serve();
    try {
      assertThatThrownBy(() -> endpoint.waitUntilReady(Duration.ofMinutes(5)))
          .isInstanceOfSatisfying(EndpointNotReadyException.class, e -> {
            assertThat(e.timedOut()).isFalse();
            assertThat(e.getMessage()).contains("is CrashLoopBackOff",
                "(last run: OOMKilled, exit code 137)", "INFO:root:loading 1 GiB of weights");
            assertThat(e.hint()).hasValueSatisfying(h -> assertThat(h)
                .contains("Mutators.resources"));
            System.out.println("ClusterServingIT: " + e.getMessage());
          });
    } finally {
      endpoint.delete();
    }
  }

  private static Pipeline pipeline(Path dir, dev.fairing4j.core.DeployerSource deployer)
      throws Exception {
    Path predictor = Files.writeString(dir.resolve("linear_predictor.py"), PREDICTOR);
    return Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.predictor(predictor).modelName("linear"))
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository("predictor")))
        .deployer(deployer);
  }
}

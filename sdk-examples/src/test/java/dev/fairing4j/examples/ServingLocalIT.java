package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.local.LocalCluster;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Endpoints served on this machine as a laptop user serves them: two replicas share the
 * requests as a Service would; the model servers listen on loopback only unless the cluster
 * exposes its endpoints; a predictor written for KServe's SDK (its custom-model sample, with
 * torch) serves through the local cluster unchanged; and one that needs a part of kserve the
 * model server does not stand in for is refused at submit, naming kserve and the fix.
 */
@Timeout(300)
class ServingLocalIT {
  private static final String WHO = """
      import os, socket

      class Who:
          def predict(self, instances):
              return [os.environ.get("HOSTNAME") or socket.gethostname() for _ in instances]
      """;

  @TempDir Path dir;
  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
    Tools.torchPython();
  }

  private LocalCluster cluster() {
    return Clusters.local().stateDir(state).volumesDir(volumes);
  }

  private Endpoint serve(String name, Path predictor, int replicas, LocalCluster cluster) {
    return Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.predictor(predictor))
        .deployer(Deployers.serving(name).replicas(replicas).on(cluster)).serve();
  }

  @Test
  void twoReplicasShareTheRequestsAndListenOnLoopbackOnly() throws Exception {
    Path predictor = Files.writeString(dir.resolve("who.py"), WHO);
    Endpoint endpoint = serve("who", predictor, 2, cluster());
    try {
      assertThat(endpoint.waitUntilReady(Duration.ofMinutes(2)).readyReplicas()).isEqualTo(2);
      Map<String, Integer> served = new TreeMap<>();
      for (int i = 0; i < 8; i++) {
        served.merge(String.valueOf(endpoint.predict(List.of(i)).get(0)), 1, Integer::sum);
      }
      assertThat(served).as("each replica answers every other request")
          .isEqualTo(Map.of("who-predictor-0", 4, "who-predictor-1", 4));

      int port = URI.create(endpoint.url()).getPort();
      assertThat(Tools.connects(InetAddress.getLoopbackAddress(), port)).isTrue();
      assertThat(Tools.connects(Tools.nonLoopbackAddress(), port))
          .as("a model served on this machine is not reachable from the network").isFalse();
    } finally {
      endpoint.delete();
    }
  }

  @Test
  void exposedEndpointsListenOnEveryInterface() throws Exception {
    Path predictor = Files.writeString(dir.resolve("who.py"), WHO);
    Endpoint endpoint = serve("who-exposed", predictor, 1, cluster().exposeEndpoints());
    try {
      endpoint.waitUntilReady(Duration.ofMinutes(2));
      assertThat(Tools.connects(Tools.nonLoopbackAddress(), URI.create(endpoint.url()).getPort())).isTrue();
    } finally {
      endpoint.delete();
    }
  }

  @Test
  void aKserveCustomModelServesUnchanged() throws Exception {
    Path predictor = Files.writeString(dir.resolve("model.py"), """
        import argparse
        import logging
        import sys
        from typing import Dict, Union

        import torch
        from kserve import Model, ModelServer, model_server, InferRequest, InferOutput
        from kserve import InferResponse
        from kserve.utils.utils import generate_uuid

        logging.basicConfig(stream=sys.stderr, level=logging.INFO)


        class LinearModel(Model):
            def __init__(self, name: str):
                super().__init__(name)
                self.load()

            def load(self):
                self.net = torch.nn.Linear(2, 1)
                with torch.no_grad():
                    self.net.weight.copy_(torch.tensor([[2.0, -1.0]]))
                    self.net.bias.fill_(0.5)
                self.ready = True
                logging.info("LinearModel loaded on %s",
                             "cuda" if torch.cuda.is_available() else "cpu")

            async def predict(self, payload: Union[Dict, InferRequest], headers=None):
                if isinstance(payload, InferRequest):
                    x = torch.tensor(payload.inputs[0].data).reshape(payload.inputs[0].shape)
                else:
                    x = torch.tensor(payload["instances"], dtype=torch.float32)
                y = self.net(x).squeeze(1).tolist()
                if isinstance(payload, InferRequest):
                    out = InferOutput(name="y", shape=[len(y)], datatype="FP32", data=y)
                    return InferResponse(response_id=generate_uuid(), model_name=self.name,
                                         infer_outputs=[out])
                return {"predictions": y}


        parser = argparse.ArgumentParser(parents=[model_server.parser])
        args, _ = parser.parse_known_args()

        if __name__ == "__main__":
            ModelServer().start([LinearModel("linear")])
        """);
    Endpoint endpoint = serve("kserve-linear", predictor, 1, cluster());
    try {
      endpoint.waitUntilReady(Duration.ofMinutes(2));
      assertThat(endpoint.modelName()).isEqualTo("linear");
      assertThat(endpoint.predict(List.of(List.of(1, 2), List.of(3, 1))))
          .containsExactly(0.5, 5.5);
      assertThat(endpoint.logs().snapshot()).extracting(l -> l.text())
          .contains("INFO:root:LinearModel loaded on cpu");
    } finally {
      endpoint.delete();
    }
  }

  @Test
  void aPredictorNeedingKserveItselfIsRefusedAtSubmitNamingKserve() throws IOException {
    Path predictor = Files.writeString(dir.resolve("stored.py"), """
        from kserve import Model
        from kserve.storage import Storage

        class Stored(Model):
            def load(self):
                self.path = Storage.download("gs://bucket/model")
                self.ready = True
        """);
    assertThatThrownBy(() -> serve("stored", predictor, 1, cluster()))
        .isInstanceOfSatisfying(FairingException.class, e -> {
          assertThat(e.getMessage()).contains("can import kserve");
          assertThat(e.hint().orElseThrow()).contains("pip install kserve");
        });
    assertThat(dev.fairing4j.deployer.TrainingClient.connect(cluster()).endpoints().endpoints())
        .as("nothing started").isEmpty();
  }
}

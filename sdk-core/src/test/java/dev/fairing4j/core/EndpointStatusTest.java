package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** An endpoint's status: when it counts as ready, its phase, and its tables. */
class EndpointStatusTest {
  private static final String URL = "http://mnist.ml.svc.cluster.local/v1/models/mnist:predict";

  @Test
  void anEndpointIsReadyOnlyWhenEveryWantedReplicaIs() {
    assertThat(status(2, 2, Optional.empty()).ready()).isTrue();
    assertThat(status(2, 1, Optional.empty()).ready()).isFalse();
    assertThat(status(0, 0, Optional.empty()).ready()).as("scaled to zero serves nothing")
        .isFalse();
    assertThat(status(2, 1, Optional.empty()).phase()).isEqualTo("NotReady");
    assertThat(status(1, 0, Optional.of("pod p is ImagePullBackOff")).phase())
        .isEqualTo("Failing");
    assertThat(status(1, 1, Optional.empty()).phase()).isEqualTo("Ready");
  }

  @Test
  void theTablesShowTheEndpointItsPodsAndTheProblemEscapedInHtml() {
    EndpointStatus status = status(1, 0, Optional.of("model <mnist> failed to load"));

    assertThat(status.toTable()).contains("Deployment ml/mnist", "Failing", "0/1", URL,
        "mnist-7d9f-x2k4p", "Pending (ImagePullBackOff: back-off pulling)", "2 restarts")
        .endsWith("model <mnist> failed to load");
    assertThat(status.toHtml()).contains("<table").contains("model &lt;mnist&gt; failed")
        .doesNotContain("<mnist>");
    assertThat(status).hasToString("Deployment ml/mnist Failing 0/1: model <mnist> failed to"
        + " load");
  }

  private static EndpointStatus status(int replicas, int ready, Optional<String> problem) {
    PodInfo pod = new PodInfo("mnist-7d9f-x2k4p", "Predictor", 0, "Pending", Optional.empty(),
        Optional.of("ImagePullBackOff"), Optional.of("back-off pulling"), 2, Optional.empty());
    return new EndpointStatus("mnist", "ml", "Deployment", URL, replicas, ready, List.of(pod),
        problem);
  }
}

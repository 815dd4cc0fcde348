package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.monitor.TensorBoard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a TensorBoard renders for each option, and the mistakes refused before anything is sent;
 * {@link TensorBoardIT} starts one on a real API server.
 */
class TensorBoardTest {

  @Test
  void optionsAndMistakes() {
    TensorBoard base = TensorBoard.forJob(new ElsewhereJob());
    Map<String, Object> deployment = base.logDir("claim", "").image("my/tb:1").name("tb")
        .manifests().get(0);
    assertThat(JsonTree.string(deployment, "metadata", "name")).contains("tb");
    assertThat(JsonTree.maps(deployment, "spec", "template", "spec", "containers").get(0))
        .containsEntry("image", "my/tb:1")
        .containsEntry("args", List.of("--logdir", "/tensorboard-logs", "--bind_all", "--port",
            "6006"));
    assertThat(JsonTree.string(base.logDir("claim", "x").manifests().get(1), "metadata", "name"))
        .contains("local-tensorboard");
    assertThatThrownBy(base::start).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("logDir");
    assertThatThrownBy(() -> base.logDir("claim", "../etc"))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> base.logDir("Not_A_Claim", "x"))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> TensorBoard.forJob(new ElsewhereJob()).logDir("c", "x").start())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Kubernetes");
  }

  /** A job that runs somewhere without owned objects (the local cluster, say). */
  private static final class ElsewhereJob implements TrainingJob {
    @Override
    public String name() {
      return "local";
    }

    @Override
    public String namespace() {
      return "default";
    }

    @Override
    public String kind() {
      return "PyTorchJob";
    }

    @Override
    public JobStatus status() {
      throw new UnsupportedOperationException();
    }

    @Override
    public JobStatus waitForCompletion(Duration timeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public JobLogs logs() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void delete() {
      throw new UnsupportedOperationException();
    }
  }
}

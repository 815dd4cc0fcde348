package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.local.LocalCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TFJob example really training, Chief + 2 Workers with MultiWorkerMirroredStrategy, on the
 * local cluster. Opt-in ({@code mvn verify -Popt-in -DincludedTestTags=tensorflow}): it needs a
 * Python with TensorFlow, which Debian does not package.
 */
@Tag(Tags.TENSORFLOW)
class TfMultiworkerIT {
  @TempDir Path state;
  @TempDir Path volumes;

  @Test
  void chiefAndWorkersTrainTogetherAndTheChiefSavesTheModel() {
    Tools.require("bwrap", "bubblewrap");
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);

    var run = ExamplesDryRunTest.run(cluster, "tf-multiworker", "--samples", "640", "--gpus", "0",
        "--quiet");

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("[chief-0] TF_CONFIG task chief:0 of 3 replicas",
        "[worker-1] TF_CONFIG task worker:1 of 3 replicas");
    assertThat(volumes.resolve(TfMultiworker.CLAIM).resolve("model.keras")).isRegularFile();
  }
}

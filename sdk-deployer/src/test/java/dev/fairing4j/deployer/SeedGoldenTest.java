package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.DeployerSource;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.RestartPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The seed scenarios rendered with a fixed context and a digest-pinned image, compared byte for
 * byte with {@code src/test/resources/golden/*.yaml} and validated against the real Kubeflow CRD
 * schemas and webhook rules. Run with {@code -Dgolden.update=true} to rewrite the files after an
 * intended change, then review the diff.
 */
class SeedGoldenTest {
  private static final CrdSchemaValidator VALIDATOR = CrdSchemaValidator.load();

  static Stream<Arguments> seeds() {
    return Stream.of(
        Arguments.of("000-traindb-training-mnist", Deployers.pyTorchJob("traindb-training-mnist")
            .workers(1)
            .restartPolicy(RestartPolicy.ON_FAILURE)
            .args("--epochs=1")
            .mutate(Mutators.pvc("traindb-models-claim", "/opt/mnist/models"))),
        Arguments.of("001-pytorch-dist", Deployers.pyTorchJob("pytorch-dist")
            .workers(2)
            .args("--backend", "nccl")
            .mutate(Mutators.gpus(1))
            .mutate(Mutators.pvc("training-data", "/mnist_data"))),
        Arguments.of("002-pytorch-dist-mnist-gloo", Deployers.pyTorchJob("pytorch-dist-mnist-gloo")
            .workers(3)
            .args("--backend", "gloo")
            .mutate(Mutators.resources("1", "2Gi"))),
        Arguments.of("003-tf-multiworker", Deployers.tfJob("tf-multiworker")
            .chief(1)
            .workers(2)
            .mutate(Mutators.resources("2", "4Gi")).mutate(Mutators.gpus(1))
            .mutate(Mutators.pvc("training-data", "/train_data"))),
        Arguments.of("004-pytorch-simple", Deployers.pyTorchJob("pytorch-simple")
            .namespace("kubeflow")
            .workers(1)
            .args("--epochs=1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("seeds")
  void rendersExactlyTheGoldenFile(String seed, DeployerSource deployer) throws IOException {
    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    if (Boolean.getBoolean("golden.update")) {
      Files.writeString(Path.of("src/test/resources/golden", seed + ".yaml"), yaml);
    }
    assertThat(yaml).isEqualTo(golden(seed));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("seeds")
  void goldenFileIsAcceptedByTheCrdSchemaAndTheWebhook(String seed, DeployerSource deployer)
      throws IOException {
    VALIDATOR.assertAllValid(golden(seed));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("seeds")
  void deploySubmitsTheObjectsRenderShows(String seed, JobDeployer<?> deployer) {
    var cluster = new Fixtures.CapturingCluster();
    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    deployer.on(cluster).asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
        ProgressListener.NONE);

    assertThat(cluster.submitted).hasSize(1);
    List<Map<String, Object>> submitted = cluster.submitted.get(0).objects();
    assertThat(submitted).isEqualTo(Fixtures.parse(yaml));
    assertThat(cluster.submitted.get(0).name()).isEqualTo(deployer.jobName());
    assertThat(cluster.submitted.get(0).namespace()).isEqualTo(deployer.options().effectiveNamespace());
    assertThat(cluster.options.get(0).replaceExisting()).isFalse();
  }

  @org.junit.jupiter.api.Test
  void theValidatorRejectsWhatTheOperatorWouldReject() throws IOException {
    // A control: the same golden manifest, broken the ways a hand-written one often is.
    Map<String, Object> object = Fixtures.trainingObject(golden("000-traindb-training-mnist"));
    Map<String, Object> master = Fixtures.at(object, "spec", "pytorchReplicaSpecs", "Master");
    master.put("replicas", 2);
    Map<String, Object> container = Fixtures.at(master, "template", "spec", "containers", 0);
    container.put("name", "torch");
    container.put("imagePullPolicyy", "Always");

    assertThat(VALIDATOR.violations(object)).anySatisfy(v -> assertThat(v).contains(
        "Master.replicas")).anySatisfy(v -> assertThat(v).contains("no container named 'pytorch'"))
        .anySatisfy(v -> assertThat(v).contains("imagePullPolicyy"));
  }

  private static String golden(String seed) throws IOException {
    try (InputStream in = SeedGoldenTest.class.getResourceAsStream("/golden/" + seed + ".yaml")) {
      assertThat(in).as("golden file " + seed + ".yaml (create it with -Dgolden.update=true)")
          .isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}

package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.deployer.KindOptionMatrixTest.Option;
import dev.fairing4j.deployer.KindOptionMatrixTest.Shape;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.kubeflow.SchedulingPolicy;
import dev.fairing4j.deployer.kubeflow.TfJobDeployer;
import dev.fairing4j.deployer.kubeflow.XGBoostJobDeployer;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every manifest the deployers render is accepted by a real API server's own validation with
 * unknown and duplicate fields as errors ({@code fieldValidation=Strict}) and nothing stored
 * ({@code dryRun=All}): the golden files, and every kind and shape crossed with every option of
 * {@link KindOptionMatrixTest}. Beside the in-JVM {@code CrdSchemaValidator}, which also checks
 * the operator's webhook rules; the server checks the CRD schemas (with the defaults it applies)
 * and the core kinds (Services, Secrets) the way a cluster does. Each object is sent into this
 * test's namespace; the namespace is the only field changed.
 */
class StrictServerValidationIT {
  private static final Path GOLDEN = Path.of("src", "test", "resources", "golden");
  private static KubeApiServer server;
  private static String namespace;

  @BeforeAll
  static void start() {
    server = KubeApiServer.shared();
    namespace = server.createNamespace("strict");
  }

  static Stream<Path> goldenFiles() throws IOException {
    try (Stream<Path> files = Files.list(GOLDEN)) {
      List<Path> yaml = files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
      assertThat(yaml).as("golden files in %s", GOLDEN.toAbsolutePath()).isNotEmpty();
      return yaml.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldenFiles")
  void everyGoldenManifestIsAccepted(Path file) throws IOException {
    assertAccepted(Files.readString(file));
  }

  @ParameterizedTest(name = "{0} x {1}")
  @MethodSource("dev.fairing4j.deployer.KindOptionMatrixTest#combinations")
  void everyKindWithEveryOptionIsAccepted(Shape shape, Option option) {
    JobDeployer<?> deployer = option.apply().apply(shape.make().get());

    assertAccepted(deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.fairing4j.deployer.KindOptionMatrixTest#shapes")
  void kubeflowRunPolicyAndSchedulingAreAccepted(Shape shape) {
    JobDeployer<?> deployer = shape.make().get();
    SchedulingPolicy gang = SchedulingPolicy.empty().withQueue("gang").withPriorityClass("high")
        .withMinAvailable(2);
    if (deployer instanceof PyTorchJobDeployer pytorch) {
      deployer = pytorch.cleanPodPolicy(CleanPodPolicy.RUNNING).schedulingPolicy(gang);
    } else if (deployer instanceof TfJobDeployer tf) {
      deployer = tf.cleanPodPolicy(CleanPodPolicy.RUNNING).schedulingPolicy(gang);
    } else if (deployer instanceof XGBoostJobDeployer xgb) {
      deployer = xgb.cleanPodPolicy(CleanPodPolicy.RUNNING).schedulingPolicy(gang);
    }

    assertAccepted(deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image())));
  }

  static Stream<Arguments> pullSecretShapes() {
    return KindOptionMatrixTest.shapes().stream().map(Arguments::of);
  }

  @ParameterizedTest(name = "{0} with pull credentials")
  @MethodSource("pullSecretShapes")
  void thePullSecretIsAccepted(Shape shape) {
    JobDeployer<?> deployer = shape.make().get().pullCredentials(
        new dev.fairing4j.core.RegistryCredentials("registry.example.com:5443", "alice",
            dev.fairing4j.core.Secret.of("pa55-w0rd")));

    assertAccepted(deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image())));
  }

  @org.junit.jupiter.api.Test
  void aServingDeploymentAndItsServiceAreAccepted() {
    assertAccepted(Deployers.serving("mnist-serve").replicas(2).modelName("mnist")
        .mutate(Mutators.gpus(1)).mutate(Mutators.pvc("models", "/models"))
        .env("LOG_LEVEL", "debug").pullCredentials(new dev.fairing4j.core.RegistryCredentials(
            "registry.example.com:5443", "alice", dev.fairing4j.core.Secret.of("pa55-w0rd")))
        .asDeployer().render(ServingDeployerTest.predictor(), Optional.of(Fixtures.image())));
  }

  @org.junit.jupiter.api.Test
  void theServerRejectsWhatStrictValidationForbids() throws IOException {
    // A control: the query is honoured (an unknown query parameter would be ignored silently).
    Map<String, Object> object = Fixtures.trainingObject(Files.readString(goldenFiles()
        .findFirst().orElseThrow()));
    Fixtures.<Map<String, Object>>at(object, "metadata").put("namespace", namespace);
    Fixtures.<Map<String, Object>>at(object, "spec").put("runPolicyy", Map.of());
    ResourceRef resource = ResourceRef.of(String.valueOf(object.get("apiVersion")),
        String.valueOf(object.get("kind")));

    Response response = server.send(User.FIXTURE, "POST", resource.collectionPath(
        Optional.of(namespace)) + "?fieldValidation=Strict&dryRun=All", object,
        "application/json");

    assertThat(response.status()).isEqualTo(400);
    assertThat(response.body()).contains("unknown field \\\"spec.runPolicyy\\\"");
    assertThat(server.send("GET", resource.objectPath(Optional.of(namespace),
        String.valueOf(Fixtures.<Object>at(object, "metadata", "name"))), null).status())
        .as("dryRun stores nothing").isEqualTo(404);
  }

  private static void assertAccepted(String yaml) {
    List<Map<String, Object>> docs = Fixtures.parse(yaml);
    assertThat(docs).isNotEmpty();
    for (Map<String, Object> doc : docs) {
      Map<String, Object> metadata = Fixtures.at(doc, "metadata");
      metadata.put("namespace", namespace);
      ResourceRef resource = ResourceRef.of(String.valueOf(doc.get("apiVersion")),
          String.valueOf(doc.get("kind")));
      String path = resource.collectionPath(Optional.of(namespace))
          + "?fieldValidation=Strict&dryRun=All";
      Response response = server.send(User.FIXTURE, "POST", path, doc, "application/json");
      assertThat(response.status()).as("%s %s: %s", doc.get("kind"), metadata.get("name"),
          response).isEqualTo(201);
    }
  }
}

package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.trainer.Initializer;
import dev.fairing4j.deployer.trainer.TrainJobDeployer;
import dev.fairing4j.deployer.trainer.TrainerApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The TrainJobs fairing4j renders against a real API server with the Trainer v2.3.0 CRDs: every
 * v2.3 golden file is accepted with unknown fields as errors ({@code fieldValidation=Strict},
 * {@code dryRun=All}); each CEL rule of the CRD refuses a broken TrainJob with the server's own
 * message, and the SDK's validation refuses the same input first (before any request), saying
 * the same; a name the server accepts but the JobSet webhook would refuse later is caught by the
 * SDK alone; v2.0's shape is unknown to v2.3's CRD.
 */
@Timeout(120)
class TrainJobServerValidationIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared()
      .withCrds(KubeApiServer.TRAINER_V2_CRDS);
  private static final Path GOLDEN = Path.of("src", "test", "resources", "golden", "trainjob");

  static Stream<Path> v23Goldens() throws IOException {
    try (Stream<Path> files = Files.list(GOLDEN)) {
      List<Path> yaml = files.filter(f -> f.toString().endsWith(".yaml"))
          .filter(f -> !f.getFileName().toString().startsWith("v2.0")).sorted().toList();
      assertThat(yaml).hasSizeGreaterThan(3);
      return yaml.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("v23Goldens")
  void everyGoldenTrainJobIsAccepted(Path file) throws IOException {
    for (Map<String, Object> doc : Fixtures.parse(Files.readString(file))) {
      Response response = create(doc);
      assertThat(response.status()).as("%s: %s", doc.get("kind"), response).isEqualTo(201);
    }
  }

  /**
   * A CRD rule: how to break a valid TrainJob, the server's message, and the deployer that the
   * SDK refuses for the same reason.
   */
  static Stream<Arguments> celRules() {
    return Stream.of(
        Arguments.of("name not RFC 1035", (Consumer<Map<String, Object>>) job ->
            Fixtures.<Map<String, Object>>at(job, "metadata").put("name", "Mnist"),
            "metadata.name must match RFC 1035 DNS label format",
            (Supplier<Object>) () -> Deployers.trainJob("Mnist"), "name"),
        Arguments.of("name over 63", (Consumer<Map<String, Object>>) job ->
            Fixtures.<Map<String, Object>>at(job, "metadata").put("name", "m".repeat(64)),
            "metadata.name must be no more than 63 characters",
            (Supplier<Object>) () -> Deployers.trainJob("m".repeat(64)), "name"),
        Arguments.of("managedBy", (Consumer<Map<String, Object>>) job ->
            Fixtures.<Map<String, Object>>at(job, "spec").put("managedBy", "me/controller"),
            "ManagedBy must be trainer.kubeflow.org/trainjob-controller or"
                + " kueue.x-k8s.io/multikueue if set",
            (Supplier<Object>) () -> Deployers.trainJob("mnist").managedBy("me/controller"),
            "managedBy"),
        Arguments.of("storageUri", (Consumer<Map<String, Object>>) job ->
            Fixtures.<Map<String, Object>>at(job, "spec").put("initializer", Map.of("dataset",
                Map.of("storageUri", "fashion_mnist"))),
            "storageUri may be empty, or it must be a valid URI (scheme://...)",
            (Supplier<Object>) () -> Initializer.of("fashion_mnist"), "storageUri"),
        Arguments.of("activeDeadlineSeconds minimum", (Consumer<Map<String, Object>>) job ->
            Fixtures.<Map<String, Object>>at(job, "spec").put("activeDeadlineSeconds", 0),
            "should be greater than or equal to 1",
            (Supplier<Object>) () -> Deployers.trainJob("mnist").activeDeadlineSeconds(0),
            "activeDeadlineSeconds"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("celRules")
  void theServerRefusesWhatTheSdkRefusesFirst(String rule, Consumer<Map<String, Object>> breakIt,
      String serverMessage, Supplier<Object> sdkInput, String field) {
    Map<String, Object> job = minimal();
    breakIt.accept(job);

    Response response = create(job);

    assertThat(response.status()).as(response.toString()).isEqualTo(422);
    assertThat(response.body()).contains(serverMessage);
    assertThatThrownBy(() -> {
      Object made = sdkInput.get();
      if (made instanceof TrainJobDeployer deployer) {
        deployer.asDeployer().validate(Fixtures.context());
      }
    }).isInstanceOfSatisfying(InvalidInputException.class, e -> {
      assertThat(e.field()).isEqualTo(field);
      if (!rule.startsWith("name") && !rule.startsWith("active")) {
        assertThat(e.getMessage()).contains(serverMessage);
      }
    });
  }

  @Test
  void aNameTooLongForTheJobSetsPodsIsAcceptedHereAndRefusedByTheSdk() {
    Map<String, Object> job = minimal();
    String name = "m".repeat(49);
    Fixtures.<Map<String, Object>>at(job, "metadata").put("name", name);

    // The API server takes it; the JobSet webhook would refuse its JobSet later, and the
    // Trainer would only say so in a Warning event.
    assertThat(create(job).status()).isEqualTo(201);
    assertThatThrownBy(() -> Deployers.trainJob(name).asDeployer().validate(Fixtures.context()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'" + name + "-node-0-0-xxxxx' (64 characters)")
        .hasMessageContaining("at most 48 characters");
  }

  @Test
  void theV20ShapeIsUnknownToTheV23Crd() {
    Map<String, Object> job = Fixtures.trainingObject(Deployers.trainJob("mnist")
        .trainerApi(TrainerApi.V2_0).label("team", "a")
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image())));

    Response response = create(job);

    assertThat(response.status()).isEqualTo(400);
    assertThat(response.body()).contains("unknown field \\\"spec.labels\\\"");
  }

  private static Map<String, Object> minimal() {
    return Fixtures.trainingObject(Deployers.trainJob("mnist")
        .asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image())));
  }

  private static Response create(Map<String, Object> doc) {
    String namespace = K8S.namespace();
    Fixtures.<Map<String, Object>>at(doc, "metadata").put("namespace", namespace);
    ResourceRefs resource = ResourceRefs.of(doc);
    return K8S.server().send(User.FIXTURE, "POST", resource.path(namespace)
        + "?fieldValidation=Strict&dryRun=All", doc, "application/json");
  }

  /** The collection of a document's kind. */
  private record ResourceRefs(dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef ref) {
    static ResourceRefs of(Map<String, Object> doc) {
      return new ResourceRefs(dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef.of(
          String.valueOf(doc.get("apiVersion")), String.valueOf(doc.get("kind"))));
    }

    String path(String namespace) {
      return ref.collectionPath(Optional.of(namespace));
    }
  }
}

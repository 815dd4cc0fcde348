package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Deployer;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures.CapturingCluster;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The image-pull Secret made from the build's registry credentials: rendered (redacted) for dry
 * runs, handed to the cluster with the real value, referenced from every pod. What a real API
 * server does with it is in {@link PullSecretIT}.
 */
class PullSecretTest {
  static final String PASSWORD = "pa55-w0rd-never-shown";
  static final RegistryCredentials CREDENTIALS = new RegistryCredentials(
      "registry.example.com:5443", "alice", Secret.of(PASSWORD));
  private static final ObjectMapper JSON = new ObjectMapper();

  static Stream<JobDeployer<?>> deployers() {
    return Stream.of(Deployers.pyTorchJob("mnist").workers(2), Deployers.tfJob("mnist").ps(1)
        .workers(2), Deployers.batchJob("mnist"), Deployers.batchJob("mnist").replicas(2));
  }

  @ParameterizedTest
  @MethodSource("deployers")
  void everyKindRendersARedactedSecretThatEveryPodPullsWith(JobDeployer<?> deployer) {
    String yaml = deployer.namespace("team").pullCredentials(CREDENTIALS)
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    CrdSchemaValidator.load().assertAllValid(yaml);
    List<Map<String, Object>> docs = Fixtures.parse(yaml);
    Map<String, Object> secret = docs.get(0);
    assertThat(secret).containsEntry("kind", "Secret")
        .containsEntry("type", "kubernetes.io/dockerconfigjson");
    assertThat(Fixtures.<String>at(secret, "metadata", "name")).isEqualTo("mnist-registry");
    assertThat(Fixtures.<String>at(secret, "metadata", "annotations", "fairing4j.dev/redacted"))
        .contains("<redacted>");
    Map<String, Object> auth = registryEntry(Fixtures.at(secret, "data", ".dockerconfigjson"));
    assertThat(auth).containsEntry("username", "alice").containsEntry("password", "<redacted>")
        .containsEntry("auth", "<redacted>");
    assertNoSecretIn(yaml);

    Map<String, Object> training = docs.get(docs.size() - 1);
    List<Map<String, Object>> templates = podTemplates(training);
    assertThat(templates).isNotEmpty().allSatisfy(template ->
        assertThat(Fixtures.<List<Object>>at(template, "spec", "imagePullSecrets"))
            .containsExactly(Map.of("name", "mnist-registry")));
  }

  @Test
  void theUsersOwnPullSecretMutatorIsKeptAndNothingIsListedTwice() {
    String yaml = Deployers.pyTorchJob("mnist")
        .mutate(Mutators.imagePullSecrets("mnist-registry", "team-pull"))
        .pullCredentials(CREDENTIALS)
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    Map<String, Object> template = podTemplates(Fixtures.trainingObject(yaml)).get(0);
    assertThat(Fixtures.<List<Object>>at(template, "spec", "imagePullSecrets")).containsExactly(
        Map.of("name", "mnist-registry"), Map.of("name", "team-pull"));
  }

  @Test
  void theSubmissionCarriesTheRealCredentialsButItsDescriptionDoesNot() {
    CapturingCluster cluster = new CapturingCluster();
    var deployer = Deployers.pyTorchJob("mnist").on(cluster).pullCredentials(CREDENTIALS);

    deployer.asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
        ProgressListener.NONE);

    RenderedJob job = cluster.submitted.get(0);
    Map<String, Object> secret = job.objects().get(0);
    Map<String, Object> auth = registryEntry(Fixtures.at(secret, "data", ".dockerconfigjson"));
    assertThat(auth).containsEntry("username", "alice").containsEntry("password", PASSWORD)
        .containsEntry("auth", base64("alice:" + PASSWORD));
    assertThat(Fixtures.<Map<String, Object>>at(secret, "metadata", "annotations")).isNull();
    assertNoSecretIn(job.toString());
    assertNoSecretIn(deployer.toString());
    assertThat(deployer.toString()).contains("pull=alice@registry.example.com:5443");
    assertNoSecretIn(deployer.options().toString());
  }

  @Test
  void theDeployerInterfaceKeepsTheKindAndTheCredentialsMakeItUnequal() {
    Deployer plain = Deployers.batchJob("mnist").asDeployer();
    Deployer withSecret = plain.withPullCredentials(CREDENTIALS);
    assertThat(withSecret).isInstanceOf(plain.getClass()).isNotEqualTo(plain);
    assertThat(withSecret).isEqualTo(plain.withPullCredentials(new RegistryCredentials(
        "registry.example.com:5443", "alice", Secret.of(PASSWORD))));
  }

  @Test
  void dockerHubCredentialsUseTheKeyKubeletLooksUp() {
    String yaml = Deployers.batchJob("mnist").pullCredentials(new RegistryCredentials("docker.io",
        "alice", Secret.of(PASSWORD))).on(new CapturingCluster())
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));
    Map<String, Object> config = decode(Fixtures.at(Fixtures.parse(yaml).get(0), "data",
        ".dockerconfigjson"));
    assertThat(Fixtures.<Map<String, Object>>at(config, "auths")).containsOnlyKeys(
        "https://index.docker.io/v1/");
  }

  @Test
  void thePipelineHandsTheBuildersCredentialsOnRedactedInDryRunsRealInRuns() {
    CapturingCluster cluster = new CapturingCluster();
    ImageBuilder builder = new ImageBuilder() {
      @Override
      public ImageRef plannedImage(BuildContext context) {
        return Fixtures.image().withDigest(Fixtures.DIGEST);
      }

      @Override
      public ImageRef build(BuildContext context, ProgressListener progress) {
        return Fixtures.image();
      }

      @Override
      public Optional<RegistryCredentials> pullCredentials() {
        return Optional.of(CREDENTIALS);
      }
    };
    var pipeline = Fairing.pipeline().preprocessor(Fixtures::context).builder(builder)
        .deployer(Deployers.pyTorchJob("mnist").on(cluster));

    String yaml = pipeline.dryRun();
    assertThat(Fixtures.parse(yaml).get(0)).containsEntry("kind", "Secret");
    assertNoSecretIn(yaml);
    assertNoSecretIn(pipeline.toString());

    pipeline.run();
    Map<String, Object> secret = cluster.submitted.get(0).objects().get(0);
    assertThat(registryEntry(Fixtures.at(secret, "data", ".dockerconfigjson")))
        .containsEntry("password", PASSWORD);
  }

  static void assertNoSecretIn(String text) {
    assertThat(text).doesNotContain(PASSWORD)
        .doesNotContain(base64("alice:" + PASSWORD))
        .doesNotContain(base64(PASSWORD));
    // Nor the real .dockerconfigjson value, whatever its key order.
    for (String config : List.of(
        "{\"auths\":{\"registry.example.com:5443\":{\"username\":\"alice\",\"password\":\""
            + PASSWORD + "\",\"auth\":\"" + base64("alice:" + PASSWORD) + "\"}}}")) {
      assertThat(text).doesNotContain(base64(config));
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> registryEntry(String dockerConfigJson) {
    Map<String, Object> auths = (Map<String, Object>) decode(dockerConfigJson).get("auths");
    assertThat(auths).containsOnlyKeys("registry.example.com:5443");
    return (Map<String, Object>) auths.get("registry.example.com:5443");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> decode(String base64) {
    try {
      return JSON.readValue(Base64.getDecoder().decode(base64), Map.class);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> podTemplates(Map<String, Object> object) {
    Map<String, Object> spec = (Map<String, Object>) object.get("spec");
    if ("Job".equals(object.get("kind"))) {
      return List.of((Map<String, Object>) spec.get("template"));
    }
    String key = "PyTorchJob".equals(object.get("kind")) ? "pytorchReplicaSpecs"
        : "tfReplicaSpecs";
    return ((Map<String, Object>) spec.get(key)).values().stream()
        .map(replica -> (Map<String, Object>) ((Map<String, Object>) replica).get("template"))
        .toList();
  }

  static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}

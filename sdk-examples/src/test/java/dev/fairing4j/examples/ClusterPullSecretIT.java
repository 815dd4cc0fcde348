package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.JibImageBuilder;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressListener;

import dev.fairing4j.core.Secret;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A private registry (TLS with its own CA, htpasswd) that the kit's node pulls from: without
 * an image-pull Secret the kubelet is refused; with the builder's push credentials, which the
 * pipeline turns into the job's Secret, the same image pulls and runs. The node learns the registry and its
 * CA from a {@code hosts.toml} in containerd's {@code config_path}, written here and removed
 * afterwards.
 */
@Tag(Tags.CLUSTER)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterPullSecretIT {
  private static final String USER = "trainer";
  private static final String PASSWORD = UUID.randomUUID().toString();

  @RegisterExtension
  static final RegistryExtension PRIVATE = RegistryExtension.tlsWithAuth(USER, PASSWORD);

  private static ClusterKit kit;
  private static String namespace;
  private static Path hosts;
  @TempDir static Path scripts;

  @BeforeAll
  static void nodeKnowsTheRegistry() throws IOException {
    kit = ClusterKit.get();
    namespace = kit.namespace();
    Path ca = PRIVATE.caCertificatePem().orElseThrow();
    hosts = kit.containerdHosts().resolve(PRIVATE.hostPort());
    Files.createDirectories(hosts);
    // containerd reads this at each pull: https with the registry's own CA, no credentials.
    Files.writeString(hosts.resolve("hosts.toml"), """
        server = "https://%1$s"
        [host."https://%1$s"]
          capabilities = ["pull", "resolve"]
          ca = "%2$s"
        """.formatted(PRIVATE.hostPort(), ca));
  }

  @AfterAll
  static void nodeForgetsTheRegistry() throws IOException {
    if (hosts != null) {
      try (Stream<Path> files = Files.list(hosts)) {
        for (Path file : files.toList()) {
          Files.delete(file);
        }
      }
      Files.delete(hosts);
    }
  }

  @Test
  void thePushCredentialsBecomeTheSecretTheKubeletPullsWith() throws IOException {
    // New content each run: an image already on the node runs without pulling (IfNotPresent).
    Path script = Files.writeString(scripts.resolve("private.py"), "# run "
        + UUID.randomUUID() + "\nprint('running the private image', flush=True)\n");
    JibImageBuilder builder = Builders.jib(kit.base().reference())
        .pushTo(PRIVATE.hostPort() + "/team/private")
        .credentials(USER, Secret.of(PASSWORD))
        .trustedCertificates(PRIVATE.caCertificatePem().orElseThrow());

    ImageRef image = withoutTheSecretTheImageDoesNotPull(builder, script);

    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(builder)
        .deployer(Deployers.pyTorchJob("private-pull").workers(1).namespace(namespace)
            .replaceExisting().on(kit.cluster()))
        .progress(ProgressListener.NONE)
        .run();
    String secretName = "private-pull-registry";
    try {
      JobStatus end = job.waitForCompletion(Duration.ofMinutes(3));

      assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
      assertThat(job.logs().snapshot()).extracting(LogLine::toString).contains(
          "[master-0] running the private image", "[worker-0] running the private image");
      // The Secret: the push credentials for this registry, owned by the job.
      JsonNode secret = kit.json("get", "secret", "-n", namespace, secretName);
      assertThat(secret.path("type").asText()).isEqualTo("kubernetes.io/dockerconfigjson");
      assertThat(secret.path("metadata").path("ownerReferences").toString())
          .contains("\"kind\":\"PyTorchJob\"", "\"name\":\"private-pull\"");
      JsonNode auth = new ObjectMapper().readTree(Base64.getDecoder().decode(
          secret.path("data").path(".dockerconfigjson").asText())).path("auths")
          .path(PRIVATE.hostPort());
      assertThat(auth.path("username").asText()).isEqualTo(USER);
      assertThat(new String(Base64.getDecoder().decode(auth.path("auth").asText()),
          StandardCharsets.UTF_8)).isEqualTo(USER + ":" + PASSWORD);
      for (String pod : List.of("private-pull-master-0", "private-pull-worker-0")) {
        JsonNode spec = kit.json("get", "pod", "-n", namespace, pod).path("spec");
        assertThat(spec.path("imagePullSecrets").toString()).contains(secretName);
        assertThat(spec.path("containers").path(0).path("image").asText())
            .isEqualTo(image.reference());
      }
      // The node fetched the manifest from the private registry, authenticated this time.
      assertThat(PRIVATE.requests()).anyMatch(r -> r.method().equals("GET")
          && r.path().equals("/v2/team/private/manifests/" + image.digest().orElseThrow())
          && r.status() == 200);
    } finally {
      job.delete();
    }
    // Deleting the job took its Secret along.
    assertThat(kit.run(List.of("get", "secret", "-n", namespace, secretName)).output())
        .contains("NotFound");
  }

  /** The image built and pushed, deployed without its credentials: the kubelet is refused. */
  private ImageRef withoutTheSecretTheImageDoesNotPull(JibImageBuilder builder, Path script) {
    ImageBuilder withoutSecret = new WithoutPullCredentials(builder);
    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(withoutSecret)
        .deployer(Deployers.pyTorchJob("no-pull-secret").workers(0).namespace(namespace)
            .replaceExisting().on(kit.cluster()))
        .progress(ProgressListener.NONE)
        .run();
    try {
      List<JobStatus> seen = new ArrayList<>();
      ClusterKit.await("the pull is refused", Duration.ofMinutes(2), () -> {
        JobStatus status = job.status();
        seen.add(status);
        return status.pods().stream().anyMatch(p -> p.reason().filter(r ->
            r.equals("ErrImagePull") || r.equals("ImagePullBackOff")).isPresent());
      }, () -> seen.get(seen.size() - 1).toTable());
      JobStatus status = seen.get(seen.size() - 1);
      System.out.println(status.toTable());
      String image = kit.json("get", "pod", "-n", namespace, "no-pull-secret-master-0")
          .path("spec").path("containers").path(0).path("image").asText();

      assertThat(kit.json("get", "pod", "-n", namespace, "no-pull-secret-master-0")
          .path("spec").path("imagePullSecrets").isMissingNode()).isTrue();
      assertThat(status.pods()).singleElement().satisfies(pod -> {
        assertThat(pod.phase()).isEqualTo("Pending");
        assertThat(pod.message().orElse("")).contains(image);
      });
      assertThat(status.toTable()).containsPattern("(?i)401 Unauthorized|unauthorized");
      return ImageRef.parse(image);
    } finally {
      job.delete();
    }
  }

  /** The builder, minus the credentials the pipeline would hand to the deployer. */
  private record WithoutPullCredentials(ImageBuilder builder) implements ImageBuilder {
    @Override
    public ImageRef plannedImage(BuildContext context) {
      return builder.plannedImage(context);
    }

    @Override
    public void validate(BuildContext context) {
      builder.validate(context);
    }

    @Override
    public ImageRef build(BuildContext context, ProgressListener progress) {
      return builder.build(context, progress);
    }
  }
}

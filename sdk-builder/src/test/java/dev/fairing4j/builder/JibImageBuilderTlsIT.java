package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.core.testing.RegistryRequest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A registry with TLS from a private CA and htpasswd authentication. */
class JibImageBuilderTlsIT {
  private static final String USER = "alice";
  private static final String PASSWORD = "Corr3ct-h0rse";
  private static final String WRONG = "wr0ng-battery-staple";

  @RegisterExtension
  static final RegistryExtension REGISTRY = RegistryExtension.tlsWithAuth(USER, PASSWORD);

  @TempDir static Path shared;
  @TempDir Path dir;
  static Path ca;

  @BeforeAll
  static void pushBase() {
    ca = REGISTRY.caCertificatePem().orElseThrow();
    BuildContext base = BuildContext.empty()
        .withFile("/etc/base-release", dev.fairing4j.core.ContextFile.ofText("tls base\n"));
    Builders.scratch().pushTo(REGISTRY.hostPort() + "/base/tls:1")
        .credentials(USER, Secret.of(PASSWORD)).trustedCertificates(ca)
        .baseLayerCache(shared.resolve("cache")).build(base, ProgressListener.NONE);
  }

  private BuildContext context() throws Exception {
    Files.writeString(dir.resolve("train.py"), "print('tls')\n");
    return Preprocessors.python(dir.resolve("train.py")).prepare();
  }

  @Test
  void theRightCredentialsPushThroughVerifiedTls() throws Exception {
    BuildContext context = context();

    ImageRef image = Builders.jib(REGISTRY.hostPort() + "/base/tls:1")
        .pushTo(REGISTRY.hostPort() + "/team/secure").credentials(USER, Secret.of(PASSWORD))
        .trustedCertificates(ca).baseLayerCache(shared.resolve("cache"))
        .build(context, ProgressListener.NONE);

    var inspected = RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/team/secure:"
        + context.contentTag());
    assertThat(inspected.path("Digest").asText()).isEqualTo(image.digest().orElseThrow());
    assertThat(inspected.path("Layers")).hasSize(2);
  }

  @Test
  void anEditLoopWithCredentialsPushesDirectlyOverTlsAndIsNotChallengedAgain() throws Exception {
    JibImageBuilder builder = Builders.jib(REGISTRY.hostPort() + "/base/tls:1")
        .pushTo(REGISTRY.hostPort() + "/team/loop").credentials(USER, Secret.of(PASSWORD))
        .trustedCertificates(ca).baseLayerCache(dir.resolve("loop-cache"));
    Files.writeString(dir.resolve("train.py"), "print('one')\n");
    builder.build(Preprocessors.python(dir.resolve("train.py")).prepare(), ProgressListener.NONE);
    Files.writeString(dir.resolve("train.py"), "print('two')\n");
    builder.build(Preprocessors.python(dir.resolve("train.py")).prepare(), ProgressListener.NONE);
    Files.writeString(dir.resolve("train.py"), "print('three')\n");
    BuildContext edit = Preprocessors.python(dir.resolve("train.py")).prepare();
    List<ProgressEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    REGISTRY.clearRequests();

    ImageRef image = builder.build(edit, events::add);

    assertThat(events).as("pushed directly").noneMatch(e -> e instanceof ProgressEvent.StepFinished
        s && s.step().startsWith("jib: "));
    assertThat(REGISTRY.requests()).as("authorizations are remembered across builds")
        .noneMatch(r -> r.status() == 401);
    assertThat(RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/team/loop:"
        + edit.contentTag()).path("Digest").asText()).isEqualTo(image.digest().orElseThrow());
  }

  @Test
  void wrongCredentialsFailNamingTheRegistryAndNeverThePassword() throws Exception {
    BuildContext context = context();
    REGISTRY.clearRequests();
    JibImageBuilder builder = Builders.jib(REGISTRY.hostPort() + "/base/tls:1")
        .pushTo(REGISTRY.hostPort() + "/team/secure").credentials(USER, Secret.of(WRONG))
        .trustedCertificates(ca).baseLayerCache(shared.resolve("cache"));

    Throwable failure = org.assertj.core.api.Assertions.catchThrowable(
        () -> builder.build(context, ProgressListener.NONE));

    assertThat(failure).isInstanceOfSatisfying(ImageBuildException.class, e -> {
      assertThat(e.subject()).contains(REGISTRY.hostPort());
      assertThat(e.httpStatus()).contains(401);
      assertThat(e.getMessage()).contains(REGISTRY.hostPort(), "401", "'alice'");
      assertThat(e.hint()).get().asString().contains("credentials(..)");
    });
    StringWriter everything = new StringWriter();
    failure.printStackTrace(new PrintWriter(everything));
    assertThat(everything.toString()).doesNotContain(WRONG).doesNotContain(PASSWORD);
    assertThat(builder.toString()).doesNotContain(WRONG);
    assertThat(REGISTRY.requests()).filteredOn(RegistryRequest::isBlobUpload).isEmpty();
  }

  @Test
  void credentialsFromDockerConfigAndFromTheEnvironment() throws Exception {
    Path config = dir.resolve("docker");
    Files.createDirectories(config);
    String auth = java.util.Base64.getEncoder().encodeToString((USER + ":" + PASSWORD)
        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Files.writeString(config.resolve("config.json"),
        "{\"auths\": {\"" + REGISTRY.hostPort() + "\": {\"auth\": \"" + auth + "\"}}}");

    FreshJvm.Result docker = FreshJvm.run(List.of(), Map.of("DOCKER_CONFIG", config.toString()),
        List.of(), CredentialsFromOutsideBuild.class, "docker",
        REGISTRY.hostPort() + "/team/docker-config", ca.toString(), dir.resolve("c1").toString());
    FreshJvm.Result env = FreshJvm.run(List.of(), Map.of("REGISTRY_USER", USER,
            "REGISTRY_PASSWORD", PASSWORD), List.of(), CredentialsFromOutsideBuild.class, "env",
        REGISTRY.hostPort() + "/team/env", ca.toString(), dir.resolve("c2").toString());

    assertThat(docker.exitCode()).as(docker.output()).isZero();
    assertThat(env.exitCode()).as(env.output()).isZero();
    assertThat(RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/team/docker-config@"
        + docker.output().replaceAll("(?s).*digest=(sha256:[0-9a-f]{64}).*", "$1")).path("Digest")
        .asText()).startsWith("sha256:");
    assertThat(env.output()).containsPattern("digest=sha256:[0-9a-f]{64}");
  }

  @Test
  void noCredentialsAtAllSaysSo() throws Exception {
    BuildContext context = context();

    assertThatThrownBy(() -> Builders.scratch().pushTo(REGISTRY.hostPort() + "/team/anon")
        .trustedCertificates(ca).build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(ImageBuildException.class, e -> {
          assertThat(e.getMessage()).contains(REGISTRY.hostPort(), "needs credentials");
          assertThat(e.httpStatus()).contains(401);
        });
  }
}

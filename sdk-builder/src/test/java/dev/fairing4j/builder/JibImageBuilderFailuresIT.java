package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.core.testing.RegistryRequest;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Each bad input or broken registry fails with a FairingException that says what to fix. */
class JibImageBuilderFailuresIT {
  @RegisterExtension
  static final RegistryExtension REGISTRY = RegistryExtension.plain();

  @TempDir static Path shared;
  @TempDir Path dir;
  static String base;
  BuildContext context;

  @BeforeAll
  static void pushBase() {
    base = REGISTRY.hostPort() + "/base/tiny:1";
    TestImages.pushTinyBase(base, shared.resolve("jib-cache"));
  }

  @BeforeEach
  void context() throws Exception {
    Files.writeString(dir.resolve("train.py"), "print(1)\n");
    context = Preprocessors.python(dir.resolve("train.py")).prepare();
    REGISTRY.clearRequests();
  }

  private JibImageBuilder on(String baseImage) {
    return Builders.jib(baseImage).baseLayerCache(shared.resolve("jib-cache"));
  }

  private void assertNothingUploaded() {
    assertThat(REGISTRY.requests()).filteredOn(RegistryRequest::isBlobUpload).isEmpty();
  }

  @Test
  void malformedReferencesNameTheirField() {
    assertThatThrownBy(() -> Builders.jib("Team/App:1"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("baseImage");
          assertThat(e.fix()).contains("registry.example.com/team/mnist");
        });
    assertThatThrownBy(() -> Builders.jib(base).pushTo("registry.example.com/team app"))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("pushTo"));
    assertThatThrownBy(() -> Builders.jib(base).pushTo("r.example.com/a@sha256:" + "0".repeat(64)))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("pushTo"));
    assertThatThrownBy(() -> Builders.jib(base).tags("-latest"))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("tags"));
    assertThatThrownBy(() -> Builders.jib(base).build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("pushTo");
          assertThat(e.fix()).contains(".pushTo(", ".toTar(");
        });
    assertThatThrownBy(() -> Builders.jibFromTar(dir.resolve("missing.tar")).toTar(dir.resolve(
        "out.tar")).build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("baseImage"));
  }

  @Test
  void aMissingBaseIsA404NamingTheBaseBeforeAnyUpload() {
    String missing = REGISTRY.hostPort() + "/base/missing:7";

    assertThatThrownBy(() -> on(missing).pushTo(REGISTRY.hostPort() + "/team/x")
        .build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(ImageBuildException.class, e -> {
          assertThat(e.httpStatus()).contains(404);
          assertThat(e.subject()).contains(REGISTRY.hostPort());
          assertThat(e.getMessage()).contains("base/missing:7", "not found");
          assertThat(e.hint()).get().asString().contains("skopeo inspect");
        });
    assertNothingUploaded();
  }

  @Test
  void aMissingBasePinnedByDigestFailsBeforeAnyUploadToo() {
    String missing = REGISTRY.hostPort() + "/base/tiny@sha256:" + "ab".repeat(32);

    assertThatThrownBy(() -> on(missing).pushTo(REGISTRY.hostPort() + "/team/x")
        .build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(ImageBuildException.class, e -> {
          assertThat(e.getMessage()).contains("base/tiny", "not found");
          assertThat(e.httpStatus()).contains(404);
        });
    assertNothingUploaded();
  }

  @Test
  void anUnreachableRegistryNamesHostAndPort() {
    assertThatThrownBy(() -> Builders.scratch().pushTo("127.0.0.1:1/team/x")
        .build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(ImageBuildException.class, e -> {
          assertThat(e.getMessage()).contains("127.0.0.1:1", "unreachable");
          assertThat(e.subject()).contains("127.0.0.1:1");
          assertThat(e.hint()).get().asString().contains("host and port");
        });
    assertThatThrownBy(() -> on("127.0.0.1:1/base/tiny:1").pushTo(REGISTRY.hostPort() + "/t/x")
        .build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(ImageBuildException.class,
            e -> assertThat(e.getMessage()).contains("127.0.0.1:1", "unreachable"));
    assertNothingUploaded();
  }

  @Test
  void anIndexWithArtifactEntriesGetsAPinningHint() throws Exception {
    var client = REGISTRY.newHttpClient();
    HttpResponse<byte[]> manifest = client.send(HttpRequest.newBuilder(
            URI.create(REGISTRY.url() + "/v2/base/tiny/manifests/1"))
        .header("Accept", "application/vnd.docker.distribution.manifest.v2+json").build(),
        HttpResponse.BodyHandlers.ofByteArray());
    String type = manifest.headers().firstValue("Content-Type").orElseThrow();
    String digest = manifest.headers().firstValue("Docker-Content-Digest").orElseThrow();
    String entry = "{\"mediaType\":\"" + type + "\",\"digest\":\"" + digest + "\",\"size\":"
        + manifest.body().length;
    String index = "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\","
        + "\"manifests\":[" + entry
        + ",\"platform\":{\"architecture\":\"amd64\",\"os\":\"linux\"}},"
        + entry + ",\"artifactType\":\"application/vnd.in-toto+json\","
        + "\"platform\":{\"architecture\":\"unknown\",\"os\":\"unknown\"}}]}";
    HttpResponse<String> put = client.send(HttpRequest.newBuilder(
            URI.create(REGISTRY.url() + "/v2/base/tiny/manifests/attested"))
        .header("Content-Type", "application/vnd.oci.image.index.v1+json")
        .PUT(HttpRequest.BodyPublishers.ofString(index)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
    String indexDigest = put.headers().firstValue("Docker-Content-Digest").orElseThrow();
    REGISTRY.clearRequests();

    assertThatThrownBy(() -> on(REGISTRY.hostPort() + "/base/tiny:attested")
        .pushTo(REGISTRY.hostPort() + "/team/x").build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(ImageBuildException.class, e -> {
          assertThat(e.getMessage()).contains("artifactType", "base/tiny:attested",
              REGISTRY.hostPort() + "/base/tiny@" + digest);
          assertThat(e.hint()).get().asString().contains("pin the base by its platform manifest"
              + " digest", "skopeo copy");
        });
    // Pinned to the index digest itself: the same advice (JibFailuresTest covers Jib's own error).
    assertThatThrownBy(() -> on(REGISTRY.hostPort() + "/base/tiny@" + indexDigest)
        .pushTo(REGISTRY.hostPort() + "/team/x").build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(ImageBuildException.class, e -> {
          assertThat(e.getMessage()).contains("artifactType");
          assertThat(e.hint()).get().asString().contains("platform manifest digest");
        });
    assertNothingUploaded();
    // And the advice works: the platform manifest digest builds.
    assertThat(on(REGISTRY.hostPort() + "/base/tiny@" + digest).pushTo(REGISTRY.hostPort()
        + "/team/pinned").build(context, ProgressListener.NONE).digest()).isPresent();
  }

  @Test
  void toStringShowsTheUserButNeverThePassword() {
    JibImageBuilder builder = Builders.jib(base).pushTo(REGISTRY.hostPort() + "/team/x")
        .credentials("alice", Secret.of("pa55-word")).baseCredentials("bob", Secret.of("b0b-pw"));

    assertThat(builder.toString()).contains("user alice", "user bob")
        .doesNotContain("pa55-word", "b0b-pw");
    assertThat(builder).isEqualTo(Builders.jib(base).pushTo(REGISTRY.hostPort() + "/team/x")
        .credentials("alice", Secret.of("pa55-word")).baseCredentials("bob", Secret.of("b0b-pw")));
  }

  @Test
  void plannedImageIsTheRepositoryWithTheContentTag() {
    assertThat(Builders.jib(base).pushTo("registry.example.com/team/mnist:v1")
        .plannedImage(context).reference())
        .isEqualTo("registry.example.com/team/mnist:" + context.contentTag());
  }
}

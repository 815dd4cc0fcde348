package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The plain registry fixture, checked with java.net.http, skopeo and the process table. */
class RegistryExtensionIT {
  @RegisterExtension
  static final RegistryExtension REGISTRY = RegistryExtension.plain();

  @Test
  void acceptsAPushedBlobAndServesItBackByteIdentical() throws Exception {
    byte[] blob = "fairing4j blob \u2713".getBytes(StandardCharsets.UTF_8);
    RegistryApi api = new RegistryApi(REGISTRY, Optional.empty());

    String digest = api.pushBlob("test/blob", blob);

    HttpResponse<byte[]> pulled = api.send(api.request("/v2/test/blob/blobs/" + digest).GET());
    assertThat(pulled.statusCode()).isEqualTo(200);
    assertThat(pulled.body()).isEqualTo(blob);
    assertThat(REGISTRY.url()).isEqualTo("http://" + REGISTRY.hostPort());
    assertThat(REGISTRY.hostPort()).matches("127\\.0\\.0\\.1:\\d+");
    assertThat(REGISTRY.caCertificatePem()).isEmpty();
    assertThat(REGISTRY.trustStore()).isEmpty();
    assertThat(REGISTRY.username()).isEmpty();
    try (var files = Files.walk(REGISTRY.storageDir())) {
      assertThat(files.anyMatch(p -> p.getFileName().toString().equals("data")
          && p.toString().contains(digest.substring(7)))).isTrue();
    }
  }

  @Test
  void requestLogSeesEveryRequestSinceTheLastClear() throws Exception {
    RegistryApi api = new RegistryApi(REGISTRY, Optional.empty());
    api.pushBlob("test/log", new byte[] {1, 2, 3});
    REGISTRY.clearRequests();

    api.pushBlob("test/log", new byte[] {4, 5, 6});
    api.send(api.request("/v2/test/log/manifests/missing").GET());

    List<RegistryRequest> seen = REGISTRY.requests();
    assertThat(seen).extracting(RegistryRequest::method, RegistryRequest::status)
        .containsExactly(tuple("POST", 202), tuple("PUT", 201), tuple("GET", 404));
    assertThat(seen.get(0).path()).isEqualTo("/v2/test/log/blobs/uploads/");
    assertThat(seen.get(1).path()).startsWith("/v2/test/log/blobs/uploads/").doesNotContain("?");
    assertThat(seen.get(2).path()).isEqualTo("/v2/test/log/manifests/missing");
    assertThat(seen).filteredOn(RegistryRequest::isBlobUpload).hasSize(2);

    REGISTRY.clearRequests();
    assertThat(REGISTRY.requests()).isEmpty();
  }

  @Test
  void skopeoSeesAPushedImage() throws Exception {
    RegistryApi api = new RegistryApi(REGISTRY, Optional.empty());
    String manifestDigest = api.pushMinimalImage("test/image", "v1");

    JsonNode inspected = RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/test/image:v1");
    JsonNode raw = RegistryExtension.skopeoInspectRaw(REGISTRY.hostPort() + "/test/image:v1");

    assertThat(inspected.path("Digest").asText()).isEqualTo(manifestDigest);
    assertThat(inspected.path("Os").asText()).isEqualTo("linux");
    assertThat(raw.path("schemaVersion").asInt()).isEqualTo(2);
    assertThat(raw.path("layers")).hasSize(1);
  }

  @Test
  void stopKillsTheRegistryProcessAndDeletesItsFiles() {
    RegistryExtension registry = RegistryExtension.plain();
    registry.start();
    long pid = registry.pid();
    Path storage = registry.storageDir();
    assertThat(ProcessHandle.of(pid)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
    assertThat(registry.isRunning()).isTrue();

    registry.stop();

    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
    assertThat(registry.isRunning()).isFalse();
    assertThat(storage).doesNotExist();
    assertThatThrownBy(registry::hostPort).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void canBeStartedAgainAfterAStopOnANewProcess() {
    try (RegistryExtension registry = RegistryExtension.plain()) {
      registry.start();
      long first = registry.pid();
      registry.stop();
      registry.start();
      assertThat(registry.pid()).isNotEqualTo(first);
      assertThat(registry.requests()).isEmpty();
    }
  }
}

package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TLS + htpasswd registry fixture: trust, credentials and the request log. */
class TlsRegistryExtensionIT {
  @RegisterExtension
  static final RegistryExtension REGISTRY = RegistryExtension.tlsWithAuth("alice", "s3cret!");

  @Test
  void answersWithTheCaTrustedAndTheRightCredentials() throws Exception {
    RegistryApi api = new RegistryApi(REGISTRY, Optional.of("alice:s3cret!"));

    assertThat(REGISTRY.url()).startsWith("https://127.0.0.1:");
    assertThat(api.send(api.request("/v2/").GET()).statusCode()).isEqualTo(200);
  }

  @Test
  void rejectsAWrongPasswordWith401AndLogsIt() throws Exception {
    REGISTRY.clearRequests();
    RegistryApi wrong = new RegistryApi(REGISTRY, Optional.of("alice:wrong"));

    assertThat(wrong.send(wrong.request("/v2/").GET()).statusCode()).isEqualTo(401);
    assertThat(REGISTRY.requests()).containsExactly(new RegistryRequest("GET", "/v2/", 401));
  }

  @Test
  void failsTheHandshakeWithoutTrustingTheCa() {
    HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    assertThatThrownBy(() -> untrusting.send(
        HttpRequest.newBuilder(URI.create(REGISTRY.url() + "/v2/")).build(),
        HttpResponse.BodyHandlers.discarding()))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void servesACertificateValidForLocalhostToo() throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(REGISTRY.sslContext().orElseThrow())
        .build();
    String localhost = REGISTRY.url().replace("127.0.0.1", "localhost");

    assertThat(client.send(HttpRequest.newBuilder(URI.create(localhost + "/v2/")).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
  }

  @Test
  void exposesTheCaAsPemAndAsATrustStore() throws Exception {
    assertThat(Files.readString(REGISTRY.caCertificatePem().orElseThrow()))
        .startsWith("-----BEGIN CERTIFICATE-----");
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(REGISTRY.trustStore().orElseThrow())) {
      store.load(in, REGISTRY.trustStorePassword());
    }
    assertThat(store.size()).isEqualTo(1);
    assertThat(REGISTRY.username()).contains("alice");
    assertThat(REGISTRY.password()).contains("s3cret!");
  }

  @Test
  void pushesAndInspectsWithCredentials() throws Exception {
    RegistryApi api = new RegistryApi(REGISTRY, Optional.of("alice:s3cret!"));
    String manifestDigest = api.pushMinimalImage("secure/image", "v1");

    JsonNode inspected = RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/secure/image:v1");

    assertThat(inspected.path("Digest").asText()).isEqualTo(manifestDigest);
  }
}

package dev.fairing4j.deployer.local.internal.trainerstatus;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status server as a client on this machine meets it: TLS with the CA file it wrote, the
 * token file, many clients at once, clients that stall; nothing runs after close.
 */
@Timeout(60)
class StatusServerTest {
  @TempDir Path jobDir;
  private StatusEndpoint endpoint;
  private StatusServer server;
  private HttpClient client;
  private String token;

  @BeforeEach
  void start() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    endpoint = StatusEndpoint.of(port, jobDir, "team-a", "tj");
    endpoint.issue(jobDir.resolve("state"));
    server = StatusServer.start(endpoint, jobDir);
    token = Files.readString(endpoint.dir().resolve("token"));
    client = HttpClient.newBuilder().sslContext(trusting(endpoint.dir().resolve("ca.crt")))
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aGoodReportIsAnsweredWithTheUpdateAndKept() throws Exception {
    HttpResponse<String> response = post(report(40, "0.5"), "Bearer " + token);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("{\"trainerStatus\":{\"progressPercentage\":40,"
        + "\"metrics\":[{\"name\":\"loss\",\"value\":\"0.5\"}],"
        + "\"lastUpdatedTime\":\"2026-12-04T10:00:00Z\"}}");
    assertThat(StatusReports.of(jobDir)).singleElement().satisfies(r -> {
      assertThat(r.time()).isEqualTo(Instant.parse("2026-12-04T10:00:00Z"));
      assertThat(r.values()).containsEntry("progress", 40.0).containsEntry("loss", 0.5);
    });
  }

  @Test
  void theTokenFileHoldsAJwtNamingThisJobsStatusPathAsItsAudience() {
    String[] parts = token.split("\\.");
    assertThat(parts).hasSize(3);
    String claims = new String(java.util.Base64.getUrlDecoder().decode(parts[1]),
        StandardCharsets.UTF_8);
    assertThat(claims).contains(
        "\"aud\":[\"trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/tj/status\"]",
        "\"kubernetes.io\":{\"namespace\":\"team-a\"}", "\"exp\":");
    assertThat(server.toString()).doesNotContain(token);
  }

  @Test
  void theStateDirectorysIdentityIsMadeOnceAndEveryJobGetsACopyAndATokenOfItsOwn()
      throws Exception {
    StatusEndpoint other = StatusEndpoint.of(endpoint.port(), jobDir.resolve("other"), "team-a",
        "tj2");
    Path identity = jobDir.resolve("state/trainer-status/server.p12");
    java.nio.file.attribute.FileTime made = Files.getLastModifiedTime(identity);

    other.issue(jobDir.resolve("state"));

    assertThat(Files.getLastModifiedTime(identity)).isEqualTo(made);
    assertThat(other.dir().resolve("ca.crt")).hasSameBinaryContentAs(
        endpoint.dir().resolve("ca.crt"));
    assertThat(Files.readString(other.dir().resolve("token"))).isNotEqualTo(token);
    assertThat(Files.getPosixFilePermissions(identity)).containsExactlyInAnyOrder(
        java.nio.file.attribute.PosixFilePermission.OWNER_READ,
        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
    // the key lies beside the replicas' directory, not in it
    assertThat(endpoint.dir()).isDirectoryNotContaining("glob:**.p12");
    assertThat(jobDir.resolve("trainer-status.p12")).isRegularFile();
  }

  @Test
  void anIdentityNearItsEndIsRenewed() throws Exception {
    Path state = jobDir.resolve("state");
    Files.writeString(state.resolve("trainer-status/expires"),
        String.valueOf(Instant.now().plus(Duration.ofDays(10)).getEpochSecond()));
    byte[] before = Files.readAllBytes(state.resolve("trainer-status/ca.crt"));

    StatusEndpoint.of(endpoint.port(), jobDir.resolve("next"), "team-a", "tj3").issue(state);

    assertThat(Files.readAllBytes(state.resolve("trainer-status/ca.crt"))).isNotEqualTo(before);
    long until = Long.parseLong(Files.readString(state.resolve("trainer-status/expires")));
    assertThat(Instant.ofEpochSecond(until)).isAfter(Instant.now().plus(Duration.ofDays(360)));
  }

  @Test
  void fiftyClientsAtOnceAreEachAnsweredAndEachReportKept() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      answers.add(client.sendAsync(request(report(i, String.valueOf(i)), "Bearer " + token),
          HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> answer : answers) {
      assertThat(answer.get().statusCode()).isEqualTo(200);
    }
    assertThat(StatusReports.of(jobDir)).hasSize(50);
  }

  @Test
  void aClientThatStallsHoldsUpNoOtherAndIsCutOff() throws Exception {
    List<Socket> stalled = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      // more than the workers: connected, no TLS handshake, nothing sent
      stalled.add(new Socket(InetAddress.getLoopbackAddress(), endpoint.port()));
    }
    long started = System.nanoTime();
    HttpResponse<String> response = post(report(1, "1"), "Bearer " + token);
    assertThat(response.statusCode()).isEqualTo(200);
    // the stalled ones are closed by the server's read timeout (after a TLS alert at most)
    for (Socket socket : stalled) {
      socket.setSoTimeout(20_000);
      assertThat(socket.getInputStream().readAllBytes()).hasSizeLessThan(64);
      socket.close();
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void aHeadThatNeverEndsIsRefusedWith431() throws Exception {
    SSLSocket socket = (SSLSocket) trusting(endpoint.dir().resolve("ca.crt")).getSocketFactory()
        .createSocket(InetAddress.getLoopbackAddress(), endpoint.port());
    try (socket) {
      socket.getOutputStream().write(("POST " + endpoint.path() + " HTTP/1.1\r\nX: "
          + "a".repeat(20_000) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      String answer = new String(readAll(socket.getInputStream()), StandardCharsets.US_ASCII);
      assertThat(answer).startsWith("HTTP/1.1 431 ");
    } catch (IOException e) {
      // the server may close while the rest of the head is still being written
      assertThat(e).hasMessageContaining("reset");
    }
  }

  @Test
  void aChunkedBodyIsAskedForItsLength() throws Exception {
    HttpRequest chunked = HttpRequest.newBuilder(URI.create(endpoint.url()))
        .header("Authorization", "Bearer " + token)
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(
            report(1, "1").getBytes(StandardCharsets.UTF_8)))).build();

    HttpResponse<String> response = client.send(chunked, HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(411);
    assertThat(response.body()).contains("\"kind\":\"Status\"", "\"code\":411");
    assertThat(StatusReports.of(jobDir)).isEmpty();
  }

  @Test
  void afterCloseNothingListensAndNoThreadOfItRuns() throws Exception {
    server.close();
    server.close();

    assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
        .noneMatch(n -> n.startsWith("fairing4j-trainer-status-team-a-tj"));
    assertThat(jobDir.resolve("trainer-status.p12")).doesNotExist();
    try (Socket socket = new Socket()) {
      assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> socket.connect(
          new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), endpoint.port()),
          1000))).isInstanceOf(java.net.ConnectException.class);
    }
  }

  private HttpResponse<String> post(String body, String authorization) throws Exception {
    return client.send(request(body, authorization), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(String body, String authorization) {
    return HttpRequest.newBuilder(URI.create(endpoint.url()))
        .header("Authorization", authorization).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }

  private static String report(int progress, String loss) {
    return "{\"trainerStatus\":{\"progressPercentage\":" + progress + ",\"metrics\":[{\"name\":"
        + "\"loss\",\"value\":\"" + loss + "\"}],\"lastUpdatedTime\":"
        + "\"2026-12-04T10:00:00.123456+00:00\"}}";
  }

  private static byte[] readAll(InputStream in) throws IOException {
    return in.readAllBytes();
  }

  private static SSLContext trusting(Path caFile) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(caFile)) {
      trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
          .generateCertificate(in));
    }
    TrustManagerFactory managers = TrustManagerFactory.getInstance(
        TrustManagerFactory.getDefaultAlgorithm());
    managers.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, managers.getTrustManagers(), null);
    return ssl;
  }
}

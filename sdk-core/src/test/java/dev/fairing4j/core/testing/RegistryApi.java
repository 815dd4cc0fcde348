package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;

/** The registry API, spoken with java.net.http only, so the fixture is checked independently. */
final class RegistryApi {
  private final RegistryExtension registry;
  private final HttpClient client;
  private final Optional<String> basicAuth;

  RegistryApi(RegistryExtension registry, Optional<String> credentials) {
    this.registry = registry;
    this.client = registry.newHttpClient();
    this.basicAuth = credentials.map(c -> "Basic "
        + Base64.getEncoder().encodeToString(c.getBytes(StandardCharsets.UTF_8)));
  }

  HttpRequest.Builder request(String pathOrUrl) {
    URI uri = URI.create(registry.url()).resolve(pathOrUrl);
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
    basicAuth.ifPresent(value -> builder.header("Authorization", value));
    return builder;
  }

  HttpResponse<byte[]> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  /** Monolithic upload: POST to open an upload session, PUT the whole blob with its digest. */
  String pushBlob(String repository, byte[] content) throws Exception {
    String digest = "sha256:" + sha256(content);
    HttpResponse<byte[]> opened = send(request("/v2/" + repository + "/blobs/uploads/")
        .POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(opened.statusCode()).isEqualTo(202);
    String location = opened.headers().firstValue("Location").orElseThrow();
    String separator = location.contains("?") ? "&" : "?";
    HttpResponse<byte[]> put = send(request(location + separator + "digest=" + digest)
        .header("Content-Type", "application/octet-stream")
        .PUT(HttpRequest.BodyPublishers.ofByteArray(content)));
    assertThat(put.statusCode()).isEqualTo(201);
    return digest;
  }

  /** One empty gzip layer, an OCI config and manifest: enough for skopeo inspect. */
  String pushMinimalImage(String repository, String tag) throws Exception {
    byte[] tar = new byte[1024];  // an empty tar archive: two zero blocks
    ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(gzipped)) {
      gzip.write(tar);
    }
    byte[] layer = gzipped.toByteArray();
    byte[] config = ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{},"
        + "\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:" + sha256(tar) + "\"]}}")
        .getBytes(StandardCharsets.UTF_8);
    String layerDigest = pushBlob(repository, layer);
    String configDigest = pushBlob(repository, config);
    byte[] manifest = ("{\"schemaVersion\":2,"
        + "\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
        + "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\","
        + "\"digest\":\"" + configDigest + "\",\"size\":" + config.length + "},"
        + "\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\","
        + "\"digest\":\"" + layerDigest + "\",\"size\":" + layer.length + "}]}")
        .getBytes(StandardCharsets.UTF_8);
    HttpResponse<byte[]> put = send(request("/v2/" + repository + "/manifests/" + tag)
        .header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
        .PUT(HttpRequest.BodyPublishers.ofByteArray(manifest)));
    assertThat(put.statusCode()).as(new String(put.body(), StandardCharsets.UTF_8))
        .isEqualTo(201);
    return "sha256:" + sha256(manifest);
  }

  private static String sha256(byte[] content) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
  }
}

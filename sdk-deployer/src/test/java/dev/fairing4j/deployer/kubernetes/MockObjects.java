package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Puts objects into the Kubernetes mock and reads them back as JSON trees, the way the operator
 * or kubectl would: by plain HTTP, independent of the code under test.
 */
final class MockObjects {
  private final KubernetesApiFixture k8s;
  private final HttpClient http = HttpClient.newHttpClient();

  MockObjects(KubernetesApiFixture k8s) {
    this.k8s = k8s;
  }

  /** POSTs {@code json} to {@code path}; returns the stored object. */
  Map<String, Object> post(String path, String json) {
    return send("POST", path, json, "application/json");
  }

  /** Merge-patches {@code path} (e.g. a job's {@code /status}). */
  Map<String, Object> mergePatch(String path, String json) {
    return send("PATCH", path, json, "application/merge-patch+json");
  }

  /** Sends a JSON patch (RFC 6902) to {@code path}: several operations applied at once. */
  Map<String, Object> jsonPatch(String path, String json) {
    return send("PATCH", path, json, "application/json-patch+json");
  }

  /** DELETEs {@code path}. */
  Map<String, Object> delete(String path) {
    return send("DELETE", path, null, "application/json");
  }

  /** GETs {@code path}; an empty map for 404. */
  Map<String, Object> get(String path) {
    return send("GET", path, null, "application/json");
  }

  private Map<String, Object> send(String method, String path, String body, String type) {
    try {
      HttpRequest request = HttpRequest.newBuilder(URI.create(k8s.url() + path))
          .header("Content-Type", type)
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(body))
          .build();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() == 404 && method.equals("GET")) {
        return Map.of();
      }
      if (response.statusCode() >= 300) {
        throw new IllegalStateException(method + " " + path + " -> " + response.statusCode()
            + " " + response.body());
      }
      return JsonTree.parseObject(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

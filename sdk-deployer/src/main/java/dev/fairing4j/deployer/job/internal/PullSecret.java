package dev.fairing4j.deployer.job.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.RegistryCredentials;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The image-pull Secret a job gets from the build's registry credentials: a
 * {@code kubernetes.io/dockerconfigjson} Secret named {@code <job>-registry} whose
 * {@code .dockerconfigjson} is {@code {"auths":{"<registry>":{"username","password","auth"}}}},
 * the format kubelet reads. For dry runs, {@link #redacted} gives the same objects with every
 * Secret's password and auth replaced by {@value #REDACTED}, so a manifest shown or logged never
 * carries the real value.
 */
public final class PullSecret {
  /** What stands in for a secret value in a dry run. */
  public static final String REDACTED = "<redacted>";
  /** The annotation that tells a reader of a dry run the data is not the real one. */
  public static final String REDACTED_ANNOTATION = "fairing4j.dev/redacted";
  /** The Secret type kubelet reads registry credentials from. */
  public static final String TYPE = "kubernetes.io/dockerconfigjson";
  /** The key of the credentials in a {@link #TYPE} Secret. */
  public static final String KEY = ".dockerconfigjson";

  // kubelet looks Docker Hub credentials up under the legacy index URL.
  private static final String DOCKER_HUB_KEY = "https://index.docker.io/v1/";

  private PullSecret() {}

  /** The Secret's name for job {@code jobName}: deterministic, so a rerun finds the same one. */
  public static String name(String jobName) {
    return jobName + "-registry";
  }

  /**
   * The Secret, with the real credentials. {@code metadata} is the job's object metadata (a
   * fresh copy; its name is replaced).
   */
  public static Map<String, Object> manifest(String jobName, Map<String, Object> metadata,
      RegistryCredentials credentials) {
    return named(name(jobName), metadata, credentials);
  }

  /**
   * The Secret named {@code secretName}, with the real credentials, for a pod that is not a
   * job's (a build's). {@code metadata} is copied; its name is replaced.
   */
  public static Map<String, Object> named(String secretName, Map<String, Object> metadata,
      RegistryCredentials credentials) {
    Map<String, Object> secretMetadata = Json.copyMap(metadata);
    secretMetadata.put("name", secretName);
    Map<String, Object> secret = Json.map();
    secret.put("apiVersion", "v1");
    secret.put("kind", "Secret");
    secret.put("metadata", secretMetadata);
    secret.put("type", TYPE);
    Map<String, Object> data = Json.map();
    data.put(KEY, base64(dockerConfig(registryKey(credentials.registry()),
        credentials.username(), credentials.password().reveal(),
        base64(credentials.username() + ":" + credentials.password().reveal()))));
    secret.put("data", data);
    return secret;
  }

  /**
   * Copies of {@code objects} safe to show: in every Secret the password and auth of each
   * registry in {@code .dockerconfigjson} become {@value #REDACTED} (user and registry stay, so
   * the reader sees whose credentials the run sends), any other data value becomes
   * {@value #REDACTED}, and the annotation {@value #REDACTED_ANNOTATION} says so.
   */
  public static List<Map<String, Object>> redacted(List<Map<String, Object>> objects) {
    List<Map<String, Object>> result = new ArrayList<>();
    for (Map<String, Object> object : objects) {
      result.add("Secret".equals(object.get("kind")) ? redactSecret(object) : object);
    }
    return result;
  }

  private static Map<String, Object> redactSecret(Map<String, Object> secret) {
    Map<String, Object> copy = Json.copyMap(secret);
    Map<String, Object> data = Json.child(copy, "data");
    for (Map.Entry<String, Object> entry : data.entrySet()) {
      entry.setValue(entry.getKey().equals(KEY) ? redactDockerConfig(String.valueOf(
          entry.getValue())) : base64(REDACTED));
    }
    Map<String, Object> annotations = Json.child(Json.child(copy, "metadata"), "annotations");
    annotations.put(REDACTED_ANNOTATION, "dry run: passwords in data are " + REDACTED
        + "; the submission sends the real credentials");
    Canonical.object(copy);
    return copy;
  }

  @SuppressWarnings("unchecked")
  private static String redactDockerConfig(String encoded) {
    Map<String, Object> redactedAuths = new LinkedHashMap<>();
    try {
      Map<String, Object> config = Mappers.JSON.readValue(Base64.getDecoder().decode(encoded), Map.class);
      if (config.get("auths") instanceof Map<?, ?> auths) {
        auths.forEach((registry, entry) -> {
          Map<String, Object> redactedEntry = new LinkedHashMap<>();
          if (entry instanceof Map<?, ?> fields && fields.get("username") != null) {
            redactedEntry.put("username", fields.get("username"));
          }
          redactedEntry.put("password", REDACTED);
          redactedEntry.put("auth", REDACTED);
          redactedAuths.put(String.valueOf(registry), redactedEntry);
        });
      }
    } catch (java.io.IOException | IllegalArgumentException unreadable) {
      // Not ours or malformed: show nothing of it rather than risk showing a secret.
      return base64(REDACTED);
    }
    return base64(toJson(Map.of("auths", redactedAuths)));
  }

  private static String dockerConfig(String registry, String username, String password,
      String auth) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("username", username);
    entry.put("password", password);
    entry.put("auth", auth);
    return toJson(Map.of("auths", Map.of(registry, entry)));
  }

  private static String registryKey(String registry) {
    return registry.equals(ImageRef.DOCKER_HUB) || registry.equals("index.docker.io")
        || registry.equals("registry-1.docker.io") ? DOCKER_HUB_KEY : registry;
  }

  private static String toJson(Object value) {
    try {
      return Mappers.JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("registry credentials could not be written as JSON", e);
    }
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}

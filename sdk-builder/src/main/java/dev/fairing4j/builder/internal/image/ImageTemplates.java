package dev.fairing4j.builder.internal.image;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Layer;
import dev.fairing4j.core.internal.Sha256;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Images Jib pushed, kept as templates for {@link DirectPush}: the manifest and configuration
 * exactly as Jib wrote them, under a key ({@link #key}) made of every input that shapes them
 * except the content of the application layers. Two builds with the same key differ only in
 * those layers' digests (manifest), their diff IDs and the fingerprint label (configuration), so
 * a later build can be assembled by replacing exactly these fields.
 *
 * <p>Kept in memory and, so that a fresh JVM starts from them too, as small files beside the
 * base-layer cache ({@link BuildSettings#templateDirectory()}). A template that cannot be read is
 * ignored: the build then goes through Jib, which writes a new one.
 */
final class ImageTemplates {
  private static final Logger LOG = LoggerFactory.getLogger(ImageTemplates.class);
  /** Changes whenever {@link DirectPush} assembles images differently; part of every key. */
  private static final String VERSION = "direct-1";
  /**
   * The jib-core that wrote the templates: another version may write its JSON differently, and a
   * template must give exactly what the Jib on the class path would.
   */
  private static final String JIB_VERSION = String.valueOf(
      com.google.cloud.tools.jib.api.Jib.class.getPackage().getImplementationVersion());

  private ImageTemplates() {}

  /**
   * An image as Jib pushed it.
   *
   * @param mediaType the manifest's media type
   * @param manifest the manifest's bytes
   * @param config the configuration's bytes
   * @param applicationLayers how many layers at the end of the manifest are the application's
   *     (the rest are the base's)
   */
  record Template(String mediaType, byte[] manifest, byte[] config, int applicationLayers) {}

  /**
   * The key of the image a build of {@code context} on {@code baseIdentity} makes: everything
   * that Jib writes into the manifest and configuration except the application layers' content
   * and the fingerprint (which depends on it).
   */
  static String key(BuildContext context, String baseIdentity, BuildSettings settings) {
    List<String> parts = new ArrayList<>(List.of(VERSION, BuildFingerprint.LAYOUT_VERSION,
        JIB_VERSION, baseIdentity, settings.user().orElse(""), settings.format().name(),
        context.workingDir()));
    parts.add("command");
    parts.addAll(context.command());
    if (!context.args().isEmpty() || settings.declaresPortsOrVolumes()) {
      parts.add("args");
      parts.addAll(context.args());
      parts.addAll(settings.portsAndVolumesParts());
    }
    parts.add("env");
    context.env().forEach((name, value) -> parts.add(name + "=" + value));
    parts.add("labels");
    context.labels().forEach((name, value) -> parts.add(name + "=" + value));
    parts.add("layers");
    for (Layer layer : Layer.values()) {
      if (!context.files(layer).isEmpty()) {
        parts.add(layer.name());
      }
    }
    return Sha256.ofParts(parts);
  }

  /** The template stored under {@code key}, from memory or from {@code directory}. */
  static Optional<Template> find(Path directory, String key) {
    Path file = directory.resolve(key + ".json");
    Optional<Template> known = BuildParts.current().templates.get(file);
    if (known.isPresent()) {
      return known;
    }
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      var json = Json.MAPPER.readTree(file.toFile());
      Base64.Decoder base64 = Base64.getDecoder();
      Template template = new Template(json.path("mediaType").asText(),
          base64.decode(json.path("manifest").asText()),
          base64.decode(json.path("config").asText()),
          json.path("applicationLayers").asInt(-1));
      if (template.mediaType().isEmpty() || template.applicationLayers() < 0) {
        return Optional.empty();
      }
      BuildParts.current().templates.put(file, template);
      return Optional.of(template);
    } catch (IOException | IllegalArgumentException e) {
      LOG.debug("ignoring the unreadable image template {} ({})", file, e.toString());
      return Optional.empty();
    }
  }

  /** Stores {@code template} under {@code key}; a failure to write it is only logged. */
  static void remember(Path directory, String key, Template template) {
    Path file = directory.resolve(key + ".json");
    BuildParts.current().templates.put(file, template);
    ObjectNode json = Json.MAPPER.createObjectNode();
    Base64.Encoder base64 = Base64.getEncoder();
    json.put("mediaType", template.mediaType());
    json.put("manifest", base64.encodeToString(template.manifest()));
    json.put("config", base64.encodeToString(template.config()));
    json.put("applicationLayers", template.applicationLayers());
    try {
      Files.createDirectories(directory);
      Path temporary = Files.createTempFile(directory, key, ".tmp");
      Files.write(temporary, Json.MAPPER.writeValueAsBytes(json));
      try {
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      LOG.debug("cannot store the image template {} ({})", file, e.toString());
    }
  }

  /** Forgets the templates held in memory (tests: the files stay). */
  static void forgetInMemory() {
    BuildParts.current().templates.clear();
  }
}

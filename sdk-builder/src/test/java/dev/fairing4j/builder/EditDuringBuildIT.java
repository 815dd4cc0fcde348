package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.RegistryExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A training script saved again while its image is being built: the image's content tag must
 * name the bytes the image holds, or a later build trusts a tag that lies.
 *
 * <p>The hook is a progress listener that rewrites {@code train.py} when Jib announces
 * {@code Building and pushing image}: after the SDK has read the context (and derived the tag),
 * before any layer is built or pushed. The image is then read back from the registry (manifest,
 * then the code layer's tar) and its {@code train.py} compared with the content the tag was derived
 * from: the tag of a context holding exactly the bytes found in the image.
 */
class EditDuringBuildIT {
  @RegisterExtension static final RegistryExtension REGISTRY = RegistryExtension.plain();

  private static final String BEFORE = "print('as saved when the build started')\n";
  private static final String AFTER = "print('saved again while the image was being built')\n";

  @TempDir Path dir;
  @TempDir Path elsewhere;

  private JibImageBuilder builder() {
    return Builders.scratch().pushTo(REGISTRY.hostPort() + "/team/edited")
        .baseLayerCache(dir.resolve("cache"));
  }

  /** The content tag of a context whose only source file holds {@code code}. */
  private String tagOf(String code) throws IOException {
    Path script = Files.writeString(elsewhere.resolve("train.py"), code);
    return Preprocessors.python(script).prepare().contentTag();
  }

  @Test
  void theTagAndTheImageComeFromTheSameBytes() throws Exception {
    Path script = Files.writeString(dir.resolve("train.py"), BEFORE);
    BuildContext context = Preprocessors.python(script).prepare();
    AtomicBoolean edited = new AtomicBoolean();
    ProgressListener editor = event -> {
      if (event instanceof ProgressEvent.StepStarted step
          && step.step().equals("jib: Building and pushing image")
          && edited.compareAndSet(false, true)) {
        try {
          Files.writeString(script, AFTER);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };

    ImageRef image = builder().build(context, editor);

    assertThat(edited).as("the hook ran").isTrue();
    String tag = image.tag().orElseThrow();
    String pushed = fileInImage(REGISTRY.hostPort() + "/team/edited:" + tag, "app/train.py");
    assertThat(tag).as("the tag names the bytes in the image").isEqualTo(tagOf(pushed));
    assertThat(pushed).isEqualTo(BEFORE);

    // The next build sees the saved file: a new tag, built rather than found up to date.
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();
    ImageRef next = builder().build(Preprocessors.python(script).prepare(), events::add);
    assertThat(next.tag()).contains(tagOf(AFTER));
    assertThat(fileInImage(REGISTRY.hostPort() + "/team/edited:" + tagOf(AFTER),
        "app/train.py")).isEqualTo(AFTER);
    assertThat(events).noneMatch(e -> e instanceof ProgressEvent.Note note
        && note.message().contains("up to date"));
  }

  /** The content of {@code path} in the top layer of {@code reference}, read from the registry. */
  private static String fileInImage(String reference, String path) throws Exception {
    JsonNode layers = RegistryExtension.skopeoInspect(reference).path("Layers");
    String top = layers.get(layers.size() - 1).asText();
    String repository = reference.substring(reference.indexOf('/') + 1, reference.lastIndexOf(':'));
    HttpResponse<byte[]> blob = REGISTRY.newHttpClient().send(HttpRequest.newBuilder(URI.create(
            REGISTRY.url() + "/v2/" + repository + "/blobs/" + top)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(blob.statusCode()).isEqualTo(200);
    return tarEntry(new GZIPInputStream(new ByteArrayInputStream(blob.body())), path)
        .orElseThrow(() -> new AssertionError(path + " is not in the top layer of " + reference));
  }

  /** A plain ustar reader: enough for Jib's layers, which hold regular files and directories. */
  private static Optional<String> tarEntry(InputStream tar, String wanted) throws IOException {
    byte[] header = new byte[512];
    while (tar.readNBytes(header, 0, 512) == 512 && header[0] != 0) {
      String name = field(header, 0, 100);
      String prefix = field(header, 345, 155);
      String full = (prefix.isEmpty() ? name : prefix + "/" + name).replaceFirst("^\\./", "")
          .replaceFirst("^/", "");
      long size = Long.parseLong(field(header, 124, 12).trim(), 8);
      byte[] content = tar.readNBytes((int) size);
      tar.skipNBytes((512 - size % 512) % 512);
      if (full.equals(wanted)) {
        return Optional.of(new String(content, StandardCharsets.UTF_8));
      }
    }
    return Optional.empty();
  }

  private static String field(byte[] header, int offset, int length) {
    int end = offset;
    while (end < offset + length && header[end] != 0) {
      end++;
    }
    return new String(header, offset, end - offset, StandardCharsets.US_ASCII);
  }
}

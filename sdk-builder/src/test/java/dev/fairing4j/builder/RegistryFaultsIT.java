package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.FaultProxy.Action;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.RegistryExtension;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pushes through a {@link FaultProxy} in front of a real registry: a registry that dies in the
 * middle of a blob upload, transient 503s and connection resets, and a registry that answers 503
 * for good. Every outcome is checked against the registry itself (its tag list and skopeo), not
 * against what the SDK says about it.
 */
@Timeout(120)
class RegistryFaultsIT {
  @RegisterExtension static final RegistryExtension REGISTRY = RegistryExtension.plain();

  @TempDir Path dir;
  private FaultProxy proxy;
  private BuildContext context;

  @BeforeEach
  void setUp() throws Exception {
    proxy = FaultProxy.to(Integer.parseInt(REGISTRY.hostPort().split(":")[1]));
    // unique content per test, so that no run finds its image already pushed
    // and incompressible, so that a layer upload is long enough to be cut in the middle
    byte[] noise = new byte[96 * 1024];
    new java.util.Random().nextBytes(noise);
    Path train = Files.writeString(dir.resolve("train.py"), "print('" + UUID.randomUUID()
        + "')\n# " + java.util.Base64.getEncoder().encodeToString(noise) + "\n");
    context = Preprocessors.python(train).prepare();
  }

  @AfterEach
  void tearDown() {
    proxy.close();
  }

  private ImageRef push(String repository) {
    return Builders.scratch().pushTo(proxy.hostPort() + "/" + repository)
        .baseLayerCache(dir.resolve("cache")).build(context, ProgressListener.NONE);
  }

  @Test
  void aRegistryThatDiesMidPushFailsNamingItAndTheNextRunCompletes() throws Exception {
    proxy.dieDuringFirstUploadAfter(4096);

    long start = System.nanoTime();
    Throwable failure = catchThrowable(() -> push("team/dies"));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(proxy.isUp()).as("the fault fired").isFalse();
    assertThat(failure).isInstanceOf(FairingException.class);
    assertThat(failure.getMessage()).contains("registry " + proxy.hostPort()).contains("fix:")
        .doesNotContain("_state=");
    assertThat(took).as("bounded retries").isLessThan(Duration.ofSeconds(30));
    assertNoTagWithoutItsManifest("team/dies");

    proxy.up();
    ImageRef pushed = push("team/dies");

    JsonNode inspected = RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/team/dies@"
        + pushed.digest().orElseThrow());
    assertThat(inspected.path("Digest").asText()).isEqualTo(pushed.digest().orElseThrow());
    assertThat(RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/team/dies:"
        + context.contentTag()).path("Digest").asText()).isEqualTo(pushed.digest().get());
    assertNoTagWithoutItsManifest("team/dies");
  }

  @Test
  void transient503sOnManifestsAndUploadsAreRetried() throws Exception {
    AtomicInteger manifests = new AtomicInteger();
    AtomicInteger uploads = new AtomicInteger();
    proxy.rule(line -> {
      if (line.contains("/manifests/") && manifests.incrementAndGet() <= 2) {
        return Action.SERVE_503;
      }
      if (line.startsWith("POST ") && line.contains("/blobs/uploads/")
          && uploads.incrementAndGet() <= 2) {
        return Action.SERVE_503;
      }
      return Action.FORWARD;
    });

    ImageRef pushed = push("team/flaky");

    assertThat(proxy.served503()).as("503s injected").isEqualTo(4);
    assertThat(RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/team/flaky@"
        + pushed.digest().orElseThrow()).path("Digest").asText())
        .isEqualTo(pushed.digest().get());
  }

  @Test
  void aConnectionResetIsRetried() throws Exception {
    AtomicInteger seen = new AtomicInteger();
    // the first request of each kind that matters: the SDK's manifest check, then Jib's upload
    proxy.rule(line -> (line.contains("/manifests/") || line.contains("/blobs/uploads/"))
        && seen.incrementAndGet() <= 2 ? Action.RESET : Action.FORWARD);

    ImageRef pushed = push("team/reset");

    assertThat(proxy.resets()).as("resets injected").isEqualTo(2);
    assertThat(RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/team/reset@"
        + pushed.digest().orElseThrow()).path("Digest").asText())
        .isEqualTo(pushed.digest().get());
  }

  @Test
  void aPermanent503GivesUpAfterBoundedTriesWithAClearError() throws Exception {
    proxy.rule(line -> Action.SERVE_503);

    long start = System.nanoTime();
    Throwable failure = catchThrowable(() -> push("team/down"));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(failure).isInstanceOf(FairingException.class);
    assertThat(failure.getMessage()).contains(proxy.hostPort()).contains("503")
        .contains("fix:");
    assertThat(took).as("bounded backoff").isLessThan(Duration.ofSeconds(30));
    assertThat(proxy.served503()).as("bounded tries").isBetween(2, 30);
    assertNoTagWithoutItsManifest("team/down");
  }

  /** Every tag the registry lists for {@code repository} resolves to a manifest skopeo reads. */
  private static void assertNoTagWithoutItsManifest(String repository) throws Exception {
    HttpResponse<String> tags = REGISTRY.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(REGISTRY.url() + "/v2/" + repository + "/tags/list"))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    if (tags.statusCode() == 404) {
      return;  // nothing was ever tagged there
    }
    assertThat(tags.statusCode()).isEqualTo(200);
    for (JsonNode tag : new ObjectMapper().readTree(tags.body()).path("tags")) {
      JsonNode inspected = RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/"
          + repository + ":" + tag.asText());
      assertThat(inspected.path("Digest").asText()).startsWith("sha256:");
    }
  }
}

package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.core.testing.RegistryRequest;
import dev.fairing4j.core.testing.Skopeo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Jib builds against a real plain-HTTP registry, checked with skopeo and the registry's log. */
class JibImageBuilderIT {
  @RegisterExtension
  static final RegistryExtension REGISTRY = RegistryExtension.plain();

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path shared;
  @TempDir Path dir;
  static String base;

  @BeforeAll
  static void pushBase() {
    base = REGISTRY.hostPort() + "/base/tiny:1";
    TestImages.pushTinyBase(base, shared.resolve("jib-cache"));
  }

  private JibImageBuilder builder(String repository) {
    return Builders.jib(base).pushTo(REGISTRY.hostPort() + "/" + repository)
        .baseLayerCache(shared.resolve("jib-cache"));
  }

  private BuildContext pythonContext(String code) throws Exception {
    Files.writeString(dir.resolve("train.py"), code);
    Files.writeString(dir.resolve("requirements.txt"), "numpy\n");
    return Preprocessors.python(dir.resolve("train.py"))
        .requirements(Path.of("requirements.txt")).env("MODE", "test").prepare();
  }

  private static long count(List<RegistryRequest> requests, String method, int status) {
    return requests.stream().filter(r -> r.isBlobUpload() && r.method().equals(method)
        && r.status() == status).count();
  }

  @Test
  void theImageHasTheConfiguredEntrypointEnvWorkingDirUserLabelsAndLayers() throws Exception {
    BuildContext context = pythonContext("print('hello')\n").withLabel("team", "ml");
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();
    REGISTRY.clearRequests();

    ImageRef image = builder("team/app").tags("latest").user("1000").build(context, events::add);

    List<RegistryRequest> requests = REGISTRY.requests();
    String ref = REGISTRY.hostPort() + "/team/app:" + context.contentTag();
    assertThat(image.reference()).isEqualTo(REGISTRY.hostPort() + "/team/app@"
        + image.digest().orElseThrow());
    assertThat(image.tag()).contains(context.contentTag());
    JsonNode inspected = RegistryExtension.skopeoInspect(ref);
    assertThat(inspected.path("Digest").asText()).isEqualTo(image.digest().orElseThrow());
    assertThat(inspected.path("Layers")).hasSize(3);  // base, requirements, code
    assertThat(RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/team/app:latest")
        .path("Digest").asText()).isEqualTo(image.digest().orElseThrow());
    JsonNode config = TestImages.config(ref);
    assertThat(config.path("created").asText()).isEqualTo("1970-01-01T00:00:00Z");
    JsonNode container = config.path("config");
    assertThat(container.path("Entrypoint")).extracting(JsonNode::asText)
        .containsExactlyElementsOf(context.command());
    assertThat(container.has("Cmd")).as("no base Cmd appended to our entrypoint").isFalse();
    assertThat(container.path("Env")).extracting(JsonNode::asText)
        .contains("BASE_ENV=from-base", "MODE=test", "PYTHONUNBUFFERED=1");
    assertThat(container.path("WorkingDir").asText()).isEqualTo("/app");
    assertThat(container.path("User").asText()).isEqualTo("1000");
    assertThat(container.path("Labels").path("team").asText()).isEqualTo("ml");
    assertThat(container.path("Labels").path("base.label").asText()).isEqualTo("yes");
    // Uploads as the registry saw them: requirements layer, code layer, config; base mounted.
    assertThat(TestImages.completedUploads(requests)).hasSize(3);
    assertThat(count(requests, "POST", 201)).as("cross-repository mounts").isEqualTo(1);
    assertThat(events).anyMatch(e -> e instanceof ProgressEvent.StepStarted s
        && s.step().equals("jib: Building and pushing image"));
    assertThat(events).anyMatch(e -> e instanceof ProgressEvent.StepFinished s
        && s.step().equals("jib: Building and pushing image"));
    assertThat(events).filteredOn(ProgressEvent.BytesTransferred.class::isInstance).isNotEmpty();
    assertThat(events).filteredOn(ProgressEvent.Note.class::isInstance)
        .extracting(e -> ((ProgressEvent.Note) e).message())
        .anyMatch(m -> m.startsWith("pushed ") && m.contains(": 3 blobs"));
  }

  @Test
  void unchangedRebuildUploadsNothingAndAOneLineChangeUploadsOnlyCodeAndConfig()
      throws Exception {
    JibImageBuilder builder = builder("team/loop");
    ImageRef first = builder.build(pythonContext("print(1)\nprint('a')\n"), ProgressListener.NONE);
    REGISTRY.clearRequests();
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();

    long start = System.nanoTime();
    ImageRef again = builder.build(pythonContext("print(1)\nprint('a')\n"), events::add);
    long unchangedMillis = (System.nanoTime() - start) / 1_000_000;
    List<RegistryRequest> unchanged = REGISTRY.requests();

    assertThat(again.digest()).isEqualTo(first.digest());
    assertThat(unchanged).filteredOn(RegistryRequest::isBlobUpload).isEmpty();
    assertThat(unchanged).allMatch(r -> r.method().equals("GET") || r.method().equals("HEAD"),
        "only reads");
    assertThat(events).filteredOn(ProgressEvent.Note.class::isInstance)
        .extracting(e -> ((ProgressEvent.Note) e).message())
        .containsExactly(again.reference() + " is up to date: nothing built, 0 bytes uploaded");

    REGISTRY.clearRequests();
    start = System.nanoTime();
    ImageRef changed = builder.build(pythonContext("print(1)\nprint('b')\n"),
        ProgressListener.NONE);
    long changedMillis = (System.nanoTime() - start) / 1_000_000;
    List<RegistryRequest> edit = REGISTRY.requests();

    assertThat(changed.digest()).isNotEqualTo(first.digest());
    assertThat(TestImages.completedUploads(edit)).as("code layer + config").hasSize(2);
    JsonNode before = RegistryExtension.skopeoInspect(first.reference()).path("Layers");
    JsonNode after = RegistryExtension.skopeoInspect(changed.reference()).path("Layers");
    assertThat(after.get(0)).isEqualTo(before.get(0));
    assertThat(after.get(1)).as("requirements layer reused").isEqualTo(before.get(1));
    assertThat(after.get(2)).isNotEqualTo(before.get(2));
    System.out.printf("bench.jib.unchanged_rebuild_ms=%d requests=%d%n", unchangedMillis,
        unchanged.size());
    System.out.printf("bench.jib.one_line_change_ms=%d uploads=%d%n", changedMillis,
        TestImages.completedUploads(edit).size());
  }

  @Test
  void aNewRepositoryInTheBasesRegistryMountsTheBaseAndDownloadsNothingEvenWithAnEmptyCache()
      throws Exception {
    BuildContext context = pythonContext("print('cache')\n");
    Path cache = dir.resolve("new-cache");
    String baseLayer = RegistryExtension.skopeoInspect(base).path("Layers").get(0).asText();
    String baseBlob = "/v2/base/tiny/blobs/" + baseLayer;

    REGISTRY.clearRequests();
    Builders.jib(base).pushTo(REGISTRY.hostPort() + "/team/cache-a").baseLayerCache(cache)
        .build(context, ProgressListener.NONE);
    List<RegistryRequest> first = REGISTRY.requests();
    REGISTRY.clearRequests();
    Builders.jib(base).pushTo(REGISTRY.hostPort() + "/team/cache-b").baseLayerCache(cache)
        .build(context, ProgressListener.NONE);
    List<RegistryRequest> second = REGISTRY.requests();

    for (List<RegistryRequest> requests : List.of(first, second)) {
      assertThat(requests).filteredOn(r -> r.path().equals(baseBlob))
          .as("the base layer is never downloaded").isEmpty();
      assertThat(count(requests, "POST", 201)).as("mounted, not uploaded").isEqualTo(1);
      assertThat(TestImages.completedUploads(requests)).as("requirements, code, config")
          .hasSize(3);
    }
  }

  @Test
  void theSameInputsGiveTheSameDigestInAFreshJvm() throws Exception {
    pythonContext("print('fresh')\n");
    ImageRef here = builder("team/jvm-a").build(Preprocessors.python(dir.resolve("train.py"))
        .requirements(Path.of("requirements.txt")).env("MODE", "test").prepare(),
        ProgressListener.NONE);

    // Another repository and an empty cache: the child really builds, nothing is reused.
    String output = FreshJvmBuild.run(dir.resolve("train.py").toString(), base,
        REGISTRY.hostPort() + "/team/jvm-b", dir.resolve("fresh-cache").toString());

    assertThat(output).contains("digest=" + here.digest().orElseThrow());
    System.out.println("fresh JVM: " + output.replace('\n', ' '));
  }

  @Test
  void tarTargetsInDockerAndOciFormatAndADockerTarAsBase() throws Exception {
    BuildContext context = pythonContext("print('tar')\n");
    Path dockerTar = dir.resolve("app-docker.tar");
    Path ociTar = dir.resolve("app-oci.tar");

    ImageRef docker = builder("team/tar").toTar(dockerTar).build(context, ProgressListener.NONE);
    ImageRef oci = builder("team/tar").format(ImageFormat.OCI).toTar(ociTar)
        .build(context, ProgressListener.NONE);

    assertThat(docker.name()).isEqualTo(REGISTRY.hostPort() + "/team/tar");
    JsonNode dockerInspect = JSON.readTree(Skopeo.run(List.of("inspect",
        "docker-archive:" + dockerTar)));
    assertThat(dockerInspect.path("Layers")).hasSize(3);
    assertThat(dockerInspect.path("Labels").path("base.label").asText()).isEqualTo("yes");
    JsonNode ociRaw = JSON.readTree(Skopeo.run(List.of("inspect", "--raw",
        "oci-archive:" + ociTar)));
    assertThat(ociRaw.path("mediaType").asText())
        .isEqualTo("application/vnd.oci.image.manifest.v1+json");
    assertThat(oci.digest()).isNotEqualTo(docker.digest());

    ImageRef onTar = Builders.jibFromTar(dockerTar).pushTo(REGISTRY.hostPort() + "/team/on-tar")
        .baseLayerCache(shared.resolve("jib-cache"))
        .build(pythonContext("print('on tar')\n"), ProgressListener.NONE);
    assertThat(RegistryExtension.skopeoInspect(onTar.reference()).path("Layers")).hasSize(5);

    assertThatThrownBy(() -> Builders.jibFromTar(ociTar).pushTo(REGISTRY.hostPort() + "/x/y")
        .validate(context))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("baseImage");
          assertThat(e.getMessage()).contains("OCI archive");
          assertThat(e.fix()).contains("skopeo copy", "docker-archive:");
        });
  }

  @Test
  void scratchImagesHoldOnlyTheContext() throws Exception {
    ImageRef image = Builders.scratch().pushTo(REGISTRY.hostPort() + "/team/scratch")
        .baseLayerCache(shared.resolve("jib-cache"))
        .build(pythonContext("print(0)\n"), ProgressListener.NONE);

    assertThat(RegistryExtension.skopeoInspect(image.reference()).path("Layers")).hasSize(2);
  }
}

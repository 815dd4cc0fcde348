package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.FairingRuntime;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.core.testing.RegistryRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edit loop's direct push (a build that differs from one Jib pushed before only in its
 * application layers) against a real registry: it must push exactly the image Jib would push for
 * the same inputs (same digest), in few requests, mount the base into a new repository, survive
 * a fresh JVM (templates on disk), and hand the build to Jib where it cannot mount the base.
 */
class DirectPushIT {
  @RegisterExtension
  static final RegistryExtension REGISTRY = RegistryExtension.plain();
  /** A second registry, for a base that cannot be mounted into the target. */
  @RegisterExtension
  static final RegistryExtension OTHER = RegistryExtension.plain();

  @TempDir static Path shared;
  @TempDir Path dir;
  static String base;
  static String otherBase;

  @BeforeAll
  static void pushBases() {
    base = REGISTRY.hostPort() + "/base/tiny:1";
    TestImages.pushTinyBase(base, shared.resolve("base-cache"));
    otherBase = OTHER.hostPort() + "/base/tiny:1";
    TestImages.pushTinyBase(otherBase, shared.resolve("other-base-cache"));
  }

  private BuildContext context(String code, boolean requirements) throws Exception {
    Files.writeString(dir.resolve("train.py"), code);
    var python = Preprocessors.python(dir.resolve("train.py")).env("MODE", "test");
    if (requirements) {
      Files.writeString(dir.resolve("requirements.txt"), "numpy\n");
      python = python.requirements(Path.of("requirements.txt"));
    }
    return python.prepare().withLabel("team", "ml");
  }

  /**
   * Builds {@code code} with Jib alone (a cache of its own, so no template) and then, in a second
   * cache, first other code (Jib; keeps the template) and then {@code code} again: the direct
   * push. Returns {Jib's image, the direct image}.
   */
  private ImageRef[] jibThenDirect(String name, UnaryOperator<JibImageBuilder> options,
      boolean requirements, List<ProgressEvent> directEvents, List<List<RegistryRequest>> log)
      throws Exception {
    ImageRef jib = options.apply(Builders.jib(base).pushTo(REGISTRY.hostPort() + "/jib/" + name)
            .baseLayerCache(dir.resolve("jib-only")))
        .build(context("print('same')\n", requirements), ProgressListener.NONE);
    JibImageBuilder direct = options.apply(Builders.jib(base).pushTo(REGISTRY.hostPort()
        + "/direct/" + name).baseLayerCache(dir.resolve("templates")));
    List<ProgressEvent> firstEvents = new CopyOnWriteArrayList<>();
    direct.build(context("print('before')\n", requirements), firstEvents::add);
    assertThat(firstEvents).as("the first build of a key goes through Jib")
        .anyMatch(e -> e instanceof ProgressEvent.StepFinished s
            && s.step().equals("jib: Building and pushing image"));
    REGISTRY.clearRequests();
    ImageRef pushed = direct.build(context("print('same')\n", requirements), directEvents::add);
    log.add(REGISTRY.requests());
    return new ImageRef[] {jib, pushed};
  }

  private static boolean wentDirect(List<ProgressEvent> events) {
    return events.stream().anyMatch(e -> e instanceof ProgressEvent.StepFinished s
        && s.step().equals("push manifest"))
        && events.stream().noneMatch(e -> e instanceof ProgressEvent.StepFinished s
        && s.step().startsWith("jib: "));
  }

  @Test
  void anEditPushedDirectlyIsTheImageJibPushesForTheSameInputsInFiveWrites() throws Exception {
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();
    List<List<RegistryRequest>> log = new CopyOnWriteArrayList<>();

    ImageRef[] images = jibThenDirect("docker", b -> b.user("1000").tags("latest"), true,
        events, log);

    assertThat(wentDirect(events)).as("direct push: %s", events).isTrue();
    assertThat(images[1].digest()).isEqualTo(images[0].digest());
    JsonNode inspected = RegistryExtension.skopeoInspect(images[1].reference());
    assertThat(inspected.path("Layers")).hasSize(3);
    assertThat(RegistryExtension.skopeoInspect(REGISTRY.hostPort() + "/direct/docker:latest")
        .path("Digest").asText()).isEqualTo(images[1].digest().orElseThrow());
    List<RegistryRequest> requests = log.get(0);
    // code layer and config: one POST + one PUT each; then the manifest and the extra tag
    assertThat(TestImages.completedUploads(requests)).hasSize(2);
    assertThat(requests).filteredOn(r -> r.method().equals("PATCH")).isEmpty();
    assertThat(requests).filteredOn(r -> !r.method().equals("GET") && !r.method().equals("HEAD"))
        .as("writes: %s", requests).hasSize(6);
    assertThat(events).filteredOn(ProgressEvent.Note.class::isInstance)
        .extracting(e -> ((ProgressEvent.Note) e).message())
        .anyMatch(m -> m.startsWith("pushed ") && m.contains(": 2 blobs"));
  }

  @Test
  void ociImagesWithOnlyACodeLayerGetJibsDigestToo() throws Exception {
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();
    List<List<RegistryRequest>> log = new CopyOnWriteArrayList<>();

    ImageRef[] images = jibThenDirect("oci", b -> b.format(ImageFormat.OCI), false, events, log);

    assertThat(wentDirect(events)).isTrue();
    assertThat(images[1].digest()).isEqualTo(images[0].digest());
    assertThat(RegistryExtension.skopeoInspectRaw(images[1].reference()).path("mediaType")
        .asText()).isEqualTo("application/vnd.oci.image.manifest.v1+json");
  }

  @Test
  void aNewRepositoryGetsTheBaseByMountAndAFreshJvmPushesDirectlyFromTheTemplateOnDisk()
      throws Exception {
    Path cache = dir.resolve("cache");
    Files.writeString(dir.resolve("requirements.txt"), "numpy\n");
    Files.writeString(dir.resolve("train.py"), "print('first')\n");
    // the context FreshJvmBuild makes, so that both builds have the same template key
    Builders.jib(base).pushTo(REGISTRY.hostPort() + "/fresh/a").baseLayerCache(cache)
        .build(Preprocessors.python(dir.resolve("train.py"))
            .requirements(Path.of("requirements.txt")).env("MODE", "test").prepare(),
            ProgressListener.NONE);
    Files.writeString(dir.resolve("train.py"), "print('new repo')\n");
    String baseLayer = RegistryExtension.skopeoInspect(base).path("Layers").get(0).asText();

    REGISTRY.clearRequests();
    String output = FreshJvmBuild.run(dir.resolve("train.py").toString(), base,
        REGISTRY.hostPort() + "/fresh/b", cache.toString());
    List<RegistryRequest> requests = REGISTRY.requests();

    // FreshJvmBuild's context has no extra label: compare with Jib's image of the same inputs
    ImageRef jib = Builders.jib(base).pushTo(REGISTRY.hostPort() + "/fresh/jib")
        .baseLayerCache(dir.resolve("jib-only")).build(Preprocessors.python(
            dir.resolve("train.py")).requirements(Path.of("requirements.txt"))
            .env("MODE", "test").prepare(), ProgressListener.NONE);
    assertThat(output).contains("digest=" + jib.digest().orElseThrow());
    assertThat(requests).filteredOn(r -> r.path().endsWith(baseLayer)
        && r.method().equals("GET")).as("base not downloaded").isEmpty();
    assertThat(requests).filteredOn(r -> r.method().equals("POST") && r.status() == 201)
        .as("base mounted").hasSize(1);
    assertThat(requests).filteredOn(r -> r.method().equals("PATCH")).as("no Jib upload")
        .isEmpty();
  }

  @Test
  void aBaseInAnotherRegistryCannotBeMountedSoJibCopiesIt() throws Exception {
    Path cache = dir.resolve("cross");
    Builders.jib(otherBase).pushTo(REGISTRY.hostPort() + "/cross/a").baseLayerCache(cache)
        .build(context("print('a')\n", false), ProgressListener.NONE);
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();
    REGISTRY.clearRequests();

    ImageRef image = Builders.jib(otherBase).pushTo(REGISTRY.hostPort() + "/cross/b")
        .baseLayerCache(cache).build(context("print('b')\n", false), events::add);

    assertThat(wentDirect(events)).as("handed to Jib").isFalse();
    assertThat(RegistryExtension.skopeoInspect(image.reference()).path("Layers")).hasSize(2);
    assertThat(TestImages.completedUploads(REGISTRY.requests()))
        .as("base layer, code layer, config: the base is copied across registries").hasSize(3);
  }

  /**
   * A runtime's pushes run on threads of its own, named after it, which end when it closes; a
   * closed runtime refuses the next build with the way on.
   */
  @Test
  void aRuntimesPushThreadsEndWhenItClosesAndItRefusesBuildsAfter() throws Exception {
    FairingRuntime runtime = FairingRuntime.create();
    JibImageBuilder direct = Builders.jib(base).pushTo(REGISTRY.hostPort() + "/direct/owned")
        .baseLayerCache(dir.resolve("templates"));
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();
    runtime.call(() -> direct.build(unchecked(() -> context("print('one')\n", false)),
        ProgressListener.NONE));
    runtime.call(() -> direct.build(unchecked(() -> context("print('two')\n", false)),
        events::add));
    assertThat(wentDirect(events)).as("direct push: %s", events).isTrue();
    String suffix = runtime.toString().replaceAll("FairingRuntime\\((\\S+),.*", "($1)");
    assertThat(pushThreads(suffix)).as("threads of the runtime's pushes").isPositive();

    runtime.close();

    for (int i = 0; i < 500 && pushThreads(suffix) > 0; i++) {
      Thread.sleep(20);
    }
    assertThat(pushThreads(suffix)).as("push threads alive after close").isZero();
    assertThatThrownBy(() -> runtime.call(() -> direct.build(unchecked(
        () -> context("print('three')\n", false)), ProgressListener.NONE)))
        .isInstanceOf(FairingException.class).hasMessageContaining("is closed");
  }

  private static long pushThreads(String suffix) {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .filter(t -> t.getName().equals("fairing4j-push " + suffix)).count();
  }

  private static <T> T unchecked(java.util.concurrent.Callable<T> call) {
    try {
      return call.call();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}

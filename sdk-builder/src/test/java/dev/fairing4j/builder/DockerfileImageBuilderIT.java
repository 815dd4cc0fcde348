package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.RegistryExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dockerfiles without RUN built by Jib against a real registry: what each instruction puts in the
 * image, read back with skopeo; the same digest from an empty cache and another repository; an
 * unchanged rebuild that uploads nothing; and a RUN refused before any request when told to use
 * Jib alone.
 */
class DockerfileImageBuilderIT {
  @RegisterExtension
  static final RegistryExtension REGISTRY = RegistryExtension.plain();

  @TempDir static Path shared;
  @TempDir Path dir;
  static String base;
  static String baseWithCmd;

  @BeforeAll
  static void pushBases() {
    base = REGISTRY.hostPort() + "/base/tiny:1";
    TestImages.pushTinyBase(base, shared.resolve("jib-cache"));
    baseWithCmd = REGISTRY.hostPort() + "/base/with-cmd:1";
    Builders.scratch().pushTo(baseWithCmd).baseLayerCache(shared.resolve("jib-cache"))
        .build(BuildContext.empty().withFile("/etc/base-release", ContextFile.ofText("cmd\n"))
            .withArgs(List.of("base-default-cmd")), ProgressListener.NONE);
  }

  private BuildContext script(String code) throws Exception {
    Files.writeString(dir.resolve("train.py"), code);
    return Preprocessors.python(dir.resolve("train.py")).prepare();
  }

  private DockerfileImageBuilder builder(String dockerfile, String repository) throws Exception {
    return Builders.dockerfile(Files.writeString(dir.resolve("Dockerfile"), dockerfile))
        .pushTo(REGISTRY.hostPort() + "/" + repository)
        .baseLayerCache(shared.resolve("jib-cache"));
  }

  @Test
  void everyInstructionLandsInTheImageAsDockerWouldPutIt() throws Exception {
    Files.writeString(dir.resolve("defaults.yaml"), "lr: 0.1\n");
    BuildContext context = script("print('hello')\n");
    DockerfileImageBuilder builder = builder("""
        ARG BASE
        FROM $BASE
        ARG EPOCHS=1
        ENV EPOCHS=${EPOCHS} MODE="fast mode"
        LABEL team=ml
        WORKDIR /srv/app
        COPY train.py defaults.yaml ./
        USER 1000
        EXPOSE 8080
        VOLUME /srv/app/out
        ENTRYPOINT ["python", "-u", "train.py"]
        CMD ["--epochs", "3"]
        """, "team/dockerfile").buildArg("BASE", base).buildArg("EPOCHS", "7");
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();

    ImageRef image = builder.build(context, events::add);

    JsonNode config = TestImages.config(image.reference()).path("config");
    List<String> env = new ArrayList<>();
    config.path("Env").forEach(e -> env.add(e.asText()));
    assertThat(env).contains("BASE_ENV=from-base", "EPOCHS=7", "MODE=fast mode");
    assertThat(config.path("Entrypoint").toString()).isEqualTo("[\"python\",\"-u\",\"train.py\"]");
    assertThat(config.path("Cmd").toString()).isEqualTo("[\"--epochs\",\"3\"]");
    assertThat(config.path("WorkingDir").asText()).isEqualTo("/srv/app");
    assertThat(config.path("User").asText()).isEqualTo("1000");
    assertThat(config.path("ExposedPorts").has("8080/tcp")).isTrue();
    assertThat(config.path("Volumes").has("/srv/app/out")).isTrue();
    assertThat(config.path("Labels").path("team").asText()).isEqualTo("ml");
    assertThat(config.path("Labels").path("base.label").asText()).isEqualTo("yes");
    JsonNode inspected = RegistryExtension.skopeoInspect(image.reference());
    assertThat(inspected.path("Layers")).as("the base's and one of the Dockerfile's files")
        .hasSize(2);
    assertThat(events).filteredOn(ProgressEvent.Note.class::isInstance)
        .extracting(e -> ((ProgressEvent.Note) e).message())
        .anyMatch(m -> m.contains("Dockerfile: line 2: FROM $BASE; built by Jib"));
    assertThat(builder.plannedImage(context).tag()).isEqualTo(image.tag());
    assertThat(builder.toString()).contains("Dockerfile", "team/dockerfile",
        "buildArgs=[BASE, EPOCHS]");
  }

  @Test
  void anEntrypointAloneDropsTheBasesCmdAndACmdAloneKeepsTheBasesEntrypoint() throws Exception {
    BuildContext context = script("print('x')\n");
    ImageRef entrypoint = builder("FROM " + baseWithCmd + "\nCOPY train.py /app/\n"
        + "ENTRYPOINT [\"python\", \"/app/train.py\"]\n", "team/entry").build(context,
        ProgressListener.NONE);
    JsonNode config = TestImages.config(entrypoint.reference()).path("config");
    assertThat(config.path("Cmd").isMissingNode() || config.path("Cmd").isNull()
        || config.path("Cmd").isEmpty()).as("Cmd: %s", config.path("Cmd")).isTrue();

    ImageRef inherits = builder("FROM " + baseWithCmd + "\nCOPY train.py /app/\n", "team/inherit")
        .build(context, ProgressListener.NONE);
    assertThat(TestImages.config(inherits.reference()).path("config").path("Cmd").toString())
        .isEqualTo("[\"base-default-cmd\"]");
  }

  @Test
  void theSameDockerfileAndFilesGiveTheSameDigestFromAnEmptyCacheAndRebuildToNothing()
      throws Exception {
    String dockerfile = "FROM " + base + "\nCOPY train.py /app/\nCMD python /app/train.py\n";
    BuildContext context = script("print('same')\n");
    ImageRef first = builder(dockerfile, "team/same-a").build(context, ProgressListener.NONE);

    ImageRef second = Builders.dockerfile(dir.resolve("Dockerfile"))
        .pushTo(REGISTRY.hostPort() + "/team/same-b").baseLayerCache(dir.resolve("empty-cache"))
        .build(script("print('same')\n"), ProgressListener.NONE);
    assertThat(second.digest()).isEqualTo(first.digest());

    REGISTRY.clearRequests();
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();
    ImageRef again = builder(dockerfile, "team/same-a").build(context, events::add);
    assertThat(again.digest()).isEqualTo(first.digest());
    assertThat(REGISTRY.requests()).filteredOn(r -> r.isBlobUpload()).isEmpty();
    assertThat(events).filteredOn(ProgressEvent.Note.class::isInstance)
        .extracting(e -> ((ProgressEvent.Note) e).message())
        .contains(again.reference() + " is up to date: nothing built, 0 bytes uploaded");

    // The edit loop: a one-line change uploads the code layer and the config, as Builders.jib's.
    REGISTRY.clearRequests();
    long started = System.nanoTime();
    ImageRef edited = builder(dockerfile, "team/same-a").build(script("print('edited')\n"),
        ProgressListener.NONE);
    long editMillis = (System.nanoTime() - started) / 1_000_000;
    assertThat(edited.digest()).isNotEqualTo(first.digest());
    assertThat(TestImages.completedUploads(REGISTRY.requests())).as("code layer + config")
        .hasSize(2);
    System.out.printf("bench.dockerfile.jib_one_line_change_ms=%d requests=%d%n", editMillis,
        REGISTRY.requests().size());

    Files.writeString(dir.resolve("Dockerfile"), dockerfile + "ENV CHANGED=1\n");
    ImageRef changed = builder(dockerfile + "ENV CHANGED=1\n", "team/same-a")
        .build(context, ProgressListener.NONE);
    assertThat(changed.digest()).isNotEqualTo(first.digest());
    assertThat(changed.tag()).isNotEqualTo(first.tag());
  }

  @Test
  void aRunStepToldToUseJibAloneIsRefusedBeforeAnyRequestWithTheWaysToBuildIt()
      throws Exception {
    BuildContext context = script("print('run')\n");
    DockerfileImageBuilder builder = builder("""
        FROM %s
        COPY train.py /app/
        RUN pip install --no-index --find-links /wheels numpy==1.24.2
        CMD ["python", "/app/train.py"]
        """.formatted(base), "team/run").tool(DockerfileTool.JIB);
    REGISTRY.clearRequests();

    assertThatThrownBy(() -> builder.build(context, ProgressListener.NONE))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("validate dockerfile failed: " + dir.resolve("Dockerfile")
            + " line 3: RUN pip install")
        .hasMessageContaining("(runs a command while building)")
        .hasMessageContaining("apt-get install buildah").hasMessageContaining("podman")
        .hasMessageContaining("inside the cluster");
    assertThat(REGISTRY.requests()).isEmpty();
  }
}

package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.BuildSite;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.PodBuild;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.Secret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the in-cluster builder hands its build site: the context files and Dockerfile, the
 * destination and arguments, checked before anything is sent. The site here only records the
 * request (the kit's ClusterKanikoIT runs real Kaniko pods).
 */
class InClusterImageBuilderTest {
  @TempDir Path dir;

  /** Records the builds it is given and answers with a digest. */
  private static final class RecordingSite implements BuildSite {
    final List<PodBuild> builds = new ArrayList<>();

    @Override
    public String describe() {
      return "recording site";
    }

    @Override
    public void validateBuildSite() {}

    @Override
    public ImageRef buildInPod(PodBuild build, ProgressListener progress) {
      builds.add(build);
      return build.destination().withDigest("sha256:" + "ab".repeat(32));
    }
  }

  private final RecordingSite site = new RecordingSite();

  private BuildContext context() throws Exception {
    Files.writeString(dir.resolve("train.py"), "print('hi')\n");
    return Preprocessors.python(dir.resolve("train.py")).prepare();
  }

  @Test
  void aDockerfileTravelsWithTheContextAndItsArgumentsToTheSite() throws Exception {
    Files.writeString(dir.resolve("extra.txt"), "extra\n");
    Path dockerfile = Files.writeString(dir.resolve("Dockerfile"),
        "ARG BASE\nFROM $BASE\nCOPY train.py extra.txt /app/\nRUN echo built\n"
            + "CMD [\"python\", \"/app/train.py\"]\n");
    BuildContext context = context();
    InClusterImageBuilder builder = Builders.inCluster(site).dockerfile(dockerfile)
        .buildArg("BASE", "python:3.11").pushTo("10.244.0.1:5055/team/app").tags("latest")
        .credentials("ci", Secret.of("s3cret")).insecureRegistry()
        .executorImage("10.244.0.1:5055/kaniko-executor:v1.23.2").namespace("builds");

    ImageRef image = builder.build(context, ProgressListener.NONE);

    PodBuild build = site.builds.get(0);
    assertThat(build.files()).containsKeys("train.py", "extra.txt", "Dockerfile",
        ".fairing4j/Dockerfile");
    assertThat(new String(build.files().get(build.dockerfile()).bytes(),
        StandardCharsets.UTF_8)).contains("RUN echo built");
    assertThat(build.buildArgs()).containsEntry("BASE", "python:3.11");
    assertThat(build.destination()).isEqualTo(builder.plannedImage(context));
    assertThat(build.extraTags()).containsExactly("latest");
    assertThat(build.insecureRegistry()).isTrue();
    assertThat(build.namespace()).contains("builds");
    assertThat(build.credentials().orElseThrow().registry()).isEqualTo("10.244.0.1:5055");
    assertThat(image.digest()).contains("sha256:" + "ab".repeat(32));
    assertThat(builder.imageContext(context).args()).containsExactly("python", "/app/train.py");
    assertThat(builder.toString()).contains("10.244.0.1:5055/team/app", "user ci")
        .doesNotContain("s3cret");
    assertThat(build.toString()).doesNotContain("s3cret").doesNotContain("python:3.11");
    assertThat(builder.pullCredentials().orElseThrow().username()).isEqualTo("ci");

    Files.writeString(dockerfile, Files.readString(dockerfile).replace("echo built",
        "echo changed"));
    assertThat(builder.plannedImage(context).tag()).as("a changed RUN changes the tag")
        .isNotEqualTo(build.destination().tag());
  }

  @Test
  void aBaseGetsAGeneratedDockerfileThatPutsEachLayerAndTheCommandInPlace() throws Exception {
    BuildContext context = context().withEnv("QUOTED", "a \"b\" $HOME").withArgs(List.of("--x"));
    Builders.inCluster(site).base("python:3.11-slim").pushTo("registry.example.com/team/app")
        .build(context, ProgressListener.NONE);

    PodBuild build = site.builds.get(0);
    assertThat(build.files()).containsKey("layers/code/app/train.py");
    assertThat(new String(build.files().get(build.dockerfile()).bytes(),
        StandardCharsets.UTF_8)).isEqualTo("""
            FROM docker.io/library/python:3.11-slim
            COPY layers/code/ /
            ENV PYTHONUNBUFFERED="1"
            ENV QUOTED="a \\"b\\" \\$HOME"
            WORKDIR /app
            ENTRYPOINT ["python","-u","/app/train.py"]
            CMD ["--x"]
            """);
  }

  @Test
  void badInputIsRefusedBeforeTheSiteIsAsked() throws Exception {
    BuildContext context = context();
    assertThatThrownBy(() -> Builders.inCluster(site).base("python:3.11").build(context,
        ProgressListener.NONE)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("validate pushTo failed");
    assertThatThrownBy(() -> Builders.inCluster(site).pushTo("r.example.com/a").build(context,
        ProgressListener.NONE)).hasMessageContaining("validate inCluster failed: has nothing to"
        + " build from");
    assertThatThrownBy(() -> Builders.inCluster(site).dockerfile(dir.resolve("Nope")))
        .hasMessageContaining("validate dockerfile failed");
    assertThatThrownBy(() -> Builders.inCluster(site).credentials("u", Secret.of("p")))
        .hasMessageContaining("validate credentials failed");
    assertThatThrownBy(() -> Builders.inCluster(site).timeout(java.time.Duration.ZERO))
        .hasMessageContaining("validate timeout failed");
    Path outside = Files.writeString(dir.resolve("Dockerfile"),
        "FROM scratch\nCOPY ../secret /x\n");
    assertThatThrownBy(() -> Builders.inCluster(site).dockerfile(outside).pushTo("r.example.com/a")
        .build(context, ProgressListener.NONE)).hasMessageContaining("outside the build context");
    assertThat(site.builds).isEmpty();
  }
}

package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.Tags;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading into a local Docker engine, which only {@code docker info} can prove is there. */
class DockerDaemonTargetIT {
  @TempDir Path cache;

  private final BuildContext context = BuildContext.empty()
      .withFile("/app/hello.txt", ContextFile.ofText("hello\n"))
      .withCommand(java.util.List.of("/bin/cat", "/app/hello.txt"));

  private JibImageBuilder builder() {
    return Builders.scratch().pushTo("localhost/fairing4j-test/daemon").toDockerDaemon()
        .baseLayerCache(cache);
  }

  private static boolean engineAnswers() throws Exception {
    try {
      Process info = new ProcessBuilder("docker", "info").redirectErrorStream(true).start();
      info.getInputStream().readAllBytes();
      return info.waitFor(20, TimeUnit.SECONDS) && info.exitValue() == 0;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void withoutAnEngineTheBuildSaysSoInsteadOfTryingDockerLoad() throws Exception {
    if (engineAnswers()) {
      assertThat(builder().build(context, ProgressListener.NONE).tag()).isPresent();
      return;
    }
    assertThatThrownBy(() -> builder().build(context, ProgressListener.NONE))
        .isInstanceOfSatisfying(ImageBuildException.class, e -> {
          assertThat(e.getMessage()).contains("no Docker engine answers");
          assertThat(e.hint()).get().asString().contains("docker info", "pushTo(..)");
        });
  }

  @Test
  @Tag(Tags.DOCKER)
  void theImageIsLoadedIntoTheEngine() throws Exception {
    ImageRef image = builder().build(context, ProgressListener.NONE);

    Process inspect = new ProcessBuilder("docker", "image", "inspect", image.reference())
        .redirectErrorStream(true).start();
    String output = new String(inspect.getInputStream().readAllBytes());
    assertThat(inspect.waitFor()).as(output).isZero();
    assertThat(output).contains("/bin/cat");
  }
}

package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 003's Dockerfile shape (a base, the script copied in, {@code CMD python /app/...}) through
 * the front door on the local cluster, which runs what the Dockerfile makes of the context: its
 * files, shell-form command, environment and working directory, with the deployer's arguments
 * replacing {@code CMD} as a pod's do. A {@code RUN} step cannot be stood in for there, and
 * says so before anything starts.
 */
@Timeout(120)
class DockerfileLocalIT {
  private static final String SCRIPT = """
      import argparse, logging, os, sys
      import torch.distributed as dist
      logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                          format="%(levelname)s %(message)s")
      parser = argparse.ArgumentParser()
      parser.add_argument("--epochs", type=int, default=1)
      args = parser.parse_args()
      dist.init_process_group("gloo")
      logging.info("rank %d of %s epochs=%d mode=%s cwd=%s config=%s", dist.get_rank(),
                   os.environ["WORLD_SIZE"], args.epochs, os.environ.get("MODE"), os.getcwd(),
                   open("/app/conf/train.yaml").read().strip())
      # The job succeeds when the Master ends: it waits until every rank has logged.
      dist.barrier()
      dist.destroy_process_group()
      """;

  @TempDir Path project;
  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
  }

  @BeforeEach
  void project() throws IOException {
    Files.writeString(project.resolve("train.py"), SCRIPT);
    Files.createDirectories(project.resolve("conf"));
    Files.writeString(project.resolve("conf/train.yaml"), "lr: 0.01\n");
    Files.writeString(project.resolve("notes.md"), "not for the image\n");
    Files.writeString(project.resolve(".dockerignore"), "*.md\n");
  }

  private Path dockerfile(String text) throws IOException {
    return Files.writeString(project.resolve("Dockerfile"), text);
  }

  private TrainingJob run(Path dockerfile, String... args) {
    return Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.python(project.resolve("train.py")))
        .builder(Builders.dockerfile(dockerfile).buildArg("MODE", "dockerfile"))
        .deployer(Deployers.pyTorchJob("from-dockerfile").workers(1).args(args)
            .on(Clusters.local().stateDir(state).volumesDir(volumes)))
        .run();
  }

  @Test
  void theSeedShapeRunsItsShellFormCmdWithItsEnvAndFilesAndArgsReplaceCmd() throws IOException {
    Path dockerfile = dockerfile("""
        FROM pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime
        ARG MODE=plain
        ENV MODE=$MODE
        COPY train.py /app/
        COPY conf /app/conf
        CMD python /app/train.py --epochs 2
        """);

    TrainingJob job = run(dockerfile);
    TrainingJob withArgs = null;
    try {
      assertThat(job.waitForCompletion(Duration.ofSeconds(60)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      assertThat(lines(job)).contains("[master-0] INFO rank 0 of 2 epochs=2 mode=dockerfile"
          + " cwd=/app config=lr: 0.01", "[worker-0] INFO rank 1 of 2 epochs=2"
          + " mode=dockerfile cwd=/app config=lr: 0.01");
      job.delete();

      dockerfile("""
          FROM pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime
          ARG MODE
          ENV MODE=$MODE
          WORKDIR /app
          COPY . .
          ENTRYPOINT ["python", "-u", "train.py"]
          CMD ["--epochs", "2"]
          """);
      withArgs = run(dockerfile, "--epochs", "5");
      assertThat(withArgs.waitForCompletion(Duration.ofSeconds(60)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      assertThat(lines(withArgs)).contains("[master-0] INFO rank 0 of 2 epochs=5"
          + " mode=dockerfile cwd=/app config=lr: 0.01");
    } finally {
      job.delete();
      if (withArgs != null) {
        withArgs.delete();
      }
    }
  }

  @Test
  void aRunStepIsRefusedOnTheLocalClusterBeforeAnythingStarts() throws IOException {
    Path dockerfile = dockerfile("""
        FROM python:3.11-slim
        ARG MODE
        COPY train.py /app/
        RUN pip install --no-index --find-links /wheels numpy==1.24.2
        CMD ["python", "/app/train.py"]
        """);

    assertThatThrownBy(() -> run(dockerfile)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("validate dockerfile failed: " + dockerfile + " line 4: RUN pip"
            + " install")
        .hasMessageContaining("Clusters.local()").hasMessageContaining("Clusters.podman()");
    assertThat(state).isEmptyDirectory();
  }

  @Test
  void aDryRunRendersTheDockerfilesCommandArgumentsAndWorkingDirectory() throws IOException {
    Path dockerfile = dockerfile("""
        FROM python:3.11-slim
        ARG MODE
        WORKDIR /srv
        COPY train.py ./
        ENTRYPOINT ["python", "-u", "/srv/train.py"]
        CMD ["--epochs", "2"]
        """);
    String yaml = Fairing.pipeline()
        .preprocessor(Preprocessors.python(project.resolve("train.py")))
        .builder(Builders.dockerfile(dockerfile).buildArg("MODE", "x")
            .pushTo("registry.example.com/team/dockerfile"))
        .deployer(Deployers.pyTorchJob("from-dockerfile").workers(1))
        .dryRun();

    assertThat(yaml).contains("image: registry.example.com/team/dockerfile:")
        .contains("workingDir: /srv")
        .containsPattern("command:\\s+- python\\s+- \"-u\"\\s+- /srv/train.py")
        .containsPattern("args:\\s+- \"--epochs\"\\s+- \"2\"");
  }

  private static List<String> lines(TrainingJob job) {
    return job.logs().snapshot().stream().map(l -> "[" + l.replica() + "] " + l.text())
        .toList();
  }
}

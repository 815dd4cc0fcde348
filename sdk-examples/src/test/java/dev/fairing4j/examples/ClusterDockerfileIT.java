package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.TestWheels;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 003's Dockerfile shape on the kit: {@code FROM} the torch base, the script copied in,
 * {@code CMD} in the exec form (the base has no shell), built by Jib with no tool, pushed to the
 * kit's registry and run as a PyTorchJob whose two pods join a gloo all-reduce; and one whose
 * RUN pip-installs a wheel with no index, built by buildah and run as a Job.
 */
@Tag(Tags.CLUSTER)
class ClusterDockerfileIT {
  private static ClusterKit kit;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
  }

  @Test
  void aDockerfileWithoutRunIsBuiltByJibAndRunsAsAPyTorchJob(@TempDir Path dir)
      throws IOException {
    Files.writeString(dir.resolve("train.py"), """
        import logging, os, sys
        import torch
        import torch.distributed as dist
        logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                            format="%(levelname)s %(message)s")
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        total = torch.tensor([float(rank + 1)])
        dist.all_reduce(total)
        logging.info("rank %d of %d sum=%s mode=%s", rank, dist.get_world_size(),
                     total.item(), os.environ["MODE"])
        dist.barrier()  # the job ends with the Master: every rank has logged by then
        dist.destroy_process_group()
        """);
    Path dockerfile = Files.writeString(dir.resolve("Dockerfile"), """
        ARG BASE
        FROM ${BASE}
        ARG MODE=plain
        ENV MODE=${MODE}
        COPY train.py /app/
        CMD ["python", "-u", "/app/train.py"]
        """);
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();

    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(dir.resolve("train.py")))
        .builder(Builders.dockerfile(dockerfile).buildArg("BASE", kit.base().reference())
            .buildArg("MODE", "kit").pushTo(ClusterKit.repository("dockerfile")))
        .deployer(Deployers.pyTorchJob("dockerfile-ddp").workers(1).namespace(kit.namespace())
            .replaceExisting().on(kit.cluster()))
        .progress(events::add)
        .run();
    try {
      assertThat(job.waitForCompletion(Duration.ofMinutes(3)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      List<String> lines = job.logs().snapshot().stream()
          .map(l -> "[" + l.replica() + "] " + l.text()).toList();
      assertThat(lines).contains("[master-0] INFO rank 0 of 2 sum=3.0 mode=kit",
          "[worker-0] INFO rank 1 of 2 sum=3.0 mode=kit");
      assertThat(events).filteredOn(ProgressEvent.Note.class::isInstance)
          .extracting(e -> ((ProgressEvent.Note) e).message())
          .anyMatch(m -> m.contains("built by Jib"));
    } finally {
      job.delete();
    }
    ImageRef planned = Builders.dockerfile(dockerfile).buildArg("BASE", kit.base().reference())
        .buildArg("MODE", "kit").pushTo(ClusterKit.repository("dockerfile"))
        .plannedImage(Preprocessors.python(dir.resolve("train.py")).prepare());
    assertThat(planned.reference()).startsWith(ClusterKit.repository("dockerfile") + ":");
  }

  @Test
  void aDockerfileThatPipInstallsIsBuiltByBuildahAndRunsAsAJob(@TempDir Path dir)
      throws IOException {
    Path wheels = Files.createDirectories(dir.resolve("wheels"));
    TestWheels.write(wheels, "fairing_probe", "installed by RUN");
    String pip = DebianPipWheel.copyInto(wheels);
    Files.writeString(dir.resolve("train.py"), """
        import logging, sys
        import torch, fairing_probe
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
        logging.info("probe=%s torch=%s", fairing_probe.GREETING, torch.__version__)
        """);
    // pip run from its own wheel: the base has the interpreter and torch, not pip
    Path dockerfile = Files.writeString(dir.resolve("Dockerfile"), """
        ARG BASE
        FROM ${BASE}
        COPY wheels/ /wheels/
        RUN ["python", "/wheels/%s/pip", "install", "--no-index", "--find-links", "/wheels", \\
             "--target", "/opt/deps", "fairing-probe"]
        ENV PYTHONPATH=/opt/deps
        COPY train.py /app/
        CMD ["python", "-u", "/app/train.py"]
        """.formatted(pip));
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();

    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(dir.resolve("train.py")))
        .builder(Builders.dockerfile(dockerfile).buildArg("BASE", kit.base().reference())
            .pushTo(ClusterKit.repository("dockerfile-run")))
        .deployer(Deployers.batchJob("dockerfile-run").namespace(kit.namespace())
            .replaceExisting().on(kit.cluster()))
        .progress(events::add)
        .run();
    try {
      assertThat(job.waitForCompletion(Duration.ofMinutes(3)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      assertThat(job.logs().snapshot()).extracting(LogLine::text)
          .anyMatch(line -> line.startsWith("probe=installed by RUN torch="));
      assertThat(events).filteredOn(ProgressEvent.Note.class::isInstance)
          .extracting(e -> ((ProgressEvent.Note) e).message())
          .anyMatch(m -> m.startsWith("Dockerfile: built by buildah (line 4: RUN"))
          .anyMatch(m -> m.startsWith("pushed " + ClusterKit.repository("dockerfile-run")));
    } finally {
      job.delete();
    }
  }
}

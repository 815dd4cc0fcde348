package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A script handed over as a Java text block, written the way PyTorch users write one (logging
 * to stderr, the rank from the operator's environment), run through the front door on the local
 * cluster as a PyTorchJob with a worker; a function with its arguments, written as the Kubeflow
 * SDK's CustomTrainer examples are, run under torchrun; and the dry run, which names the image by
 * the script's digest and never shows its text.
 */
@Timeout(180)
class InlineSourceLocalIT {
  private static final String SCRIPT = """
      import logging, os, sys
      import torch.distributed as dist
      logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                          format="%(levelname)s %(message)s")
      log = logging.getLogger("train")
      rank = int(os.environ["RANK"])
      world = int(os.environ["WORLD_SIZE"])
      secret = "inline-secret-not-for-yaml"
      dist.init_process_group("gloo")
      log.info("rank %d of %d from an inline script", rank, world)
      # The job succeeds when the Master ends: it waits until every rank has logged.
      dist.barrier()
      dist.destroy_process_group()
      """;

  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
  }

  @Test
  void aTextBlockRunsAsAPyTorchJobOnTheLocalCluster() {
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.source("train.py", SCRIPT))
        .deployer(Deployers.pyTorchJob("inline").workers(1)
            .on(Clusters.local().stateDir(state).volumesDir(volumes)))
        .run();
    try {
      assertThat(job.waitForCompletion(Duration.ofSeconds(60)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      List<String> lines = job.logs().snapshot().stream()
          .map(l -> "[" + l.replica() + "] " + l.text()).toList();
      assertThat(lines).contains("[master-0] INFO rank 0 of 2 from an inline script",
          "[worker-0] INFO rank 1 of 2 from an inline script");
    } finally {
      job.delete();
    }
  }

  /** Written as the Kubeflow SDK's CustomTrainer examples are: imports inside the function. */
  static final String TRAIN_FUNCTION = """
      def train_func(lr, epochs=1):
          import logging, os, sys
          import torch
          import torch.distributed as dist
          logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                              format="%(levelname)s %(message)s")
          dist.init_process_group(backend="gloo")
          local_rank = int(os.environ["LOCAL_RANK"])
          total = torch.tensor([float(dist.get_rank())])
          dist.all_reduce(total)
          logging.info("rank %d of %d local_rank %d lr=%s epochs=%s sum=%s", dist.get_rank(),
                       dist.get_world_size(), local_rank, lr, epochs, total.item())
          dist.barrier()  # the job ends with the Master: every rank has logged by then
          dist.destroy_process_group()
      """;

  @Test
  void aFunctionWithItsArgumentsRunsUnderTorchrunAsAPyTorchJob() {
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.function(TRAIN_FUNCTION, Map.of("lr", 0.05, "epochs", 2))
            .torchrun())
        .deployer(Deployers.pyTorchJob("function").workers(1)
            .on(Clusters.local().stateDir(state).volumesDir(volumes)))
        .run();
    try {
      assertThat(job.waitForCompletion(Duration.ofSeconds(90)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      List<String> lines = job.logs().snapshot().stream()
          .map(l -> "[" + l.replica() + "] " + l.text()).toList();
      assertThat(lines).contains(
          "[master-0] INFO rank 0 of 2 local_rank 0 lr=0.05 epochs=2 sum=1.0",
          "[worker-0] INFO rank 1 of 2 local_rank 0 lr=0.05 epochs=2 sum=1.0");
    } finally {
      job.delete();
    }
  }

  @Test
  void aDryRunNamesTheScriptByItsDigestNeverItsTextOrTheFunctionsArguments() {
    String yaml = Fairing.pipeline()
        .preprocessor(Preprocessors.source("train.py", SCRIPT))
        .builder(Builders.jib("python:3.11-slim").pushTo("registry.example.com/team/inline"))
        .deployer(Deployers.pyTorchJob("inline").workers(1))
        .dryRun();

    assertThat(yaml).contains("registry.example.com/team/inline:")
        .contains("/app/train.py").doesNotContain("inline-secret-not-for-yaml");
    assertThat(Preprocessors.source("train.py", SCRIPT).toString())
        .doesNotContain("inline-secret");

    String functionYaml = Fairing.pipeline()
        .preprocessor(Preprocessors.function(TRAIN_FUNCTION, Map.of("lr", 0.05)))
        .builder(Builders.jib("python:3.11-slim").pushTo("registry.example.com/team/inline"))
        .deployer(Deployers.pyTorchJob("inline").workers(1))
        .dryRun();
    assertThat(functionYaml).contains("/app/train_func_main.py").doesNotContain("all_reduce")
        .doesNotContain("0.05");
  }
}

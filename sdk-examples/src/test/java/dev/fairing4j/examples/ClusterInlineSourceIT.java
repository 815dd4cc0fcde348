package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.deployer.Deployers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Inline Python on the kit: a text block and a function with its arguments (the Kubeflow SDK's
 * CustomTrainer form, under torchrun), each built by Jib on the torch base and run as a
 * PyTorchJob whose two pods join a gloo all-reduce.
 */
@Tag(Tags.CLUSTER)
class ClusterInlineSourceIT {
  private static ClusterKit kit;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
  }

  private List<String> run(String name, Preprocessor preprocessor) {
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(preprocessor)
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository(name)))
        .deployer(Deployers.pyTorchJob(name).workers(1).namespace(kit.namespace())
            .replaceExisting().on(kit.cluster()))
        .run();
    try {
      assertThat(job.waitForCompletion(Duration.ofMinutes(3)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      return job.logs().snapshot().stream().map(l -> "[" + l.replica() + "] " + l.text())
          .toList();
    } finally {
      job.delete();
    }
  }

  @Test
  void aTextBlockRunsAsAPyTorchJobOnTheKit() {
    List<String> lines = run("inline-source", Preprocessors.source("train.py", """
        import logging, os, sys
        import torch.distributed as dist
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
        dist.init_process_group("gloo")
        logging.info("rank %d of %d from a text block", dist.get_rank(),
                     dist.get_world_size())
        dist.barrier()  # the job ends with the Master: every rank has logged by then
        dist.destroy_process_group()
        """));
    assertThat(lines).contains("[master-0] rank 0 of 2 from a text block",
        "[worker-0] rank 1 of 2 from a text block");
  }

  @Test
  void aFunctionWithItsArgumentsRunsUnderTorchrunAsAPyTorchJobOnTheKit() {
    List<String> lines = run("inline-function", Preprocessors.function(
        InlineSourceLocalIT.TRAIN_FUNCTION, Map.of("lr", 0.05, "epochs", 2)).torchrun());
    assertThat(lines).contains(
        "[master-0] INFO rank 0 of 2 local_rank 0 lr=0.05 epochs=2 sum=1.0",
        "[worker-0] INFO rank 1 of 2 local_rank 0 lr=0.05 epochs=2 sum=1.0");
  }
}

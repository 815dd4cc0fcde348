package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.FairingRuntime;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the local cluster boots the spare supervisor JVM that the next submit takes: not beside a
 * job whose replicas fill every core while they start (the boot's CPU slowed a short DDP epoch
 * by a fifth on 2 cores), but as soon as that job ends. A job with a core to spare gets the next
 * spare at once ({@link RuntimeCloseLocalIT} sees it while its one-replica job runs).
 */
@Timeout(120)
class SpareSupervisorLocalIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aJobThatFillsEveryCoreGetsNoSpareBesideItAndTheNextBootsWhenItEnds(@TempDir Path state,
      @TempDir Path volumes, @TempDir Path dir) throws Exception {
    Tools.require("bwrap", "bubblewrap");
    int cores = Runtime.getRuntime().availableProcessors();
    assertThat(cores).as("a Master and Workers for every other core: this test needs 2 cores")
        .isGreaterThan(1);
    Files.writeString(dir.resolve("train.py"), String.join("\n",
        "import os, time",
        "print('started rank', os.environ['RANK'], flush=True)",
        "time.sleep(60)", ""));
    Set<Long> before = RuntimeCloseLocalIT.supervisors();
    List<String> lines = new CopyOnWriteArrayList<>();
    try (FairingRuntime runtime = FairingRuntime.create()) {
      TrainingJob job = runtime.pipeline()
          .preprocessor(Preprocessors.python(dir.resolve("train.py")))
          .deployer(Deployers.pyTorchJob("fills-cores").workers(cores - 1)
              .on(Clusters.local().stateDir(state).volumesDir(volumes)))
          .run();
      try {
        job.logs().follow(lines::add);
        ClusterKit.await("every rank's first line", WAIT,
            () -> lines.stream().filter(l -> l.contains("started rank")).count() == cores,
            lines::toString);
        Set<Long> running = RuntimeCloseLocalIT.supervisors();
        running.removeAll(before);
        assertThat(running).as("the job's supervisor, and no spare booting beside its ranks")
            .hasSize(1);

        job.delete();
        ClusterKit.await("a spare booted once the job ended", WAIT, () -> {
          Set<Long> now = RuntimeCloseLocalIT.supervisors();
          now.removeAll(before);
          now.removeAll(running);
          return now.size() == 1 && running.stream().noneMatch(RuntimeCloseLocalIT::alive);
        }, () -> RuntimeCloseLocalIT.supervisors().toString());
      } finally {
        job.delete();
      }
    }
  }
}

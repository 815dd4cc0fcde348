package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's pattern loses no line: {@code try (var logs = job.logs().follow(..)) {
 * job.waitForCompletion(..) }} with a Master and two Workers that each print {@value #LINES}
 * numbered lines, the Workers finishing after the Master (whose success ends the job): closing
 * the follower right after the wait still delivers every line of every replica, exactly once.
 * Repeated 20 times, as the loss showed in some runs only.
 */
class LosslessFollowIT {
  private static final int LINES = 40;
  private static final String SCRIPT = String.join("\n",
      "import os, time",
      "rank = int(os.environ['RANK'])",
      "for i in range(" + LINES + "):",
      "    print(f'rank {rank} line {i}', flush=True)",
      "    if i % 10 == 0:",
      "        time.sleep(0.01)",
      "# the Workers' last lines come after the Master has succeeded",
      "if rank > 0:",
      "    time.sleep(0.2 * rank)",
      "    print(f'rank {rank} done', flush=True)",
      "");

  @TempDir static Path state;
  @TempDir static Path volumes;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
  }

  @AfterEach
  void deleteEveryJob() {
    cluster().listAll().forEach(TrainingJob::delete);
  }

  @RepeatedTest(20)
  void closingTheFollowerAfterTheWaitDeliversEveryLineOfEveryReplicaOnce() {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(SCRIPT))
        .withCommand(List.of("python3", "/app/main.py"));
    TrainingJob job = Deployers.pyTorchJob("lossless").workers(2).replaceExisting()
        .on(cluster()).asDeployer().deploy(context, Optional.empty(), ProgressListener.NONE);
    List<LogLine> seen = new CopyOnWriteArrayList<>();

    try (var logs = job.logs().stream(seen::add)) {
      assertThat(job.waitForCompletion(Duration.ofSeconds(60)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
    }

    Map<String, Long> counts = seen.stream().map(LogLine::text)
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    for (int rank = 0; rank < 3; rank++) {
      int r = rank;
      IntStream.range(0, LINES).forEach(i -> assertThat(counts.get("rank " + r + " line " + i))
          .as("rank %d line %d delivered once", r, i).isEqualTo(1L));
    }
    assertThat(counts).containsEntry("rank 1 done", 1L).containsEntry("rank 2 done", 1L);
  }

  private static LocalCluster cluster() {
    return LocalCluster.create().stateDir(state).volumesDir(volumes);
  }
}

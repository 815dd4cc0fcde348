package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Local jobs outlive the handle and the cluster object that started them: a second
 * {@code LocalCluster} lists and attaches to them. A job tied to its JVM
 * ({@code LocalCluster.tiedToJvm()}) whose JVM was SIGKILLed or stopped with Ctrl-C leaves no
 * process behind and reports honestly that its supervisor is gone.
 */
@Timeout(90)
class LocalClusterAttachIT extends LocalClusterTestBase {
  @Test
  void aSecondClusterInstanceListsAndAttachesToARunningJob() throws Exception {
    String script = String.join("\n",
        "import os, time",
        "print('waiting for go', flush=True)",
        "end = time.time() + 30",
        "while not os.path.exists('/data/go') and time.time() < end:",
        "    time.sleep(0.05)",
        "print('done', flush=True)",
        "");
    Map<String, Object> container = Manifests.container("pytorch",
        List.of("python", "/app/main.py"), Map.of(), 23456, "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("data", "/data")));
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/main.py"));
    LocalCluster first = LocalCluster.create().stateDir(state).volumesDir(volumes);
    first.submit(Manifests.pyTorchJob("attach-me", 1, container, "Never", Map.of(),
        List.of(Manifests.pvcVolume("data", "attach-data")), null), context,
        SubmitOptions.DEFAULT, ProgressListener.NONE);

    LocalCluster second = LocalCluster.create().stateDir(state).volumesDir(volumes);
    assertThat(second.list("default")).extracting(TrainingJob::name).containsExactly("attach-me");
    assertThat(second.list("other")).isEmpty();
    TrainingJob attached = second.attach("default", "attach-me").orElseThrow();
    assertThat(attached.kind()).isEqualTo("PyTorchJob");
    awaitLine(attached, "waiting for go", 30);
    // the supervisor records the start a moment after the replica has started
    awaitPhase(attached, JobPhase.RUNNING);

    Files.createFile(volumes.resolve("attach-data/go"));
    JobStatus end = attached.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.replicaStatuses().get("Master").succeeded()).isEqualTo(1);
    assertThat(attached.logs().replica("master-0").snapshot()).extracting(l -> l.text())
        .containsExactly("waiting for go", "done");
    assertThat(second.attach("default", "nope")).isEmpty();
  }

  @Test
  void aSigkilledJvmLeavesNoProcessOfAJobTiedToItAndTheJobReportsTheLostSupervisor()
      throws Exception {
    Process child = ChildJvms.start(state, volumes, "orphan", "tied", "default");
    List<Long> pids;
    try {
      pids = ChildJvms.readyPids(child);

      // Another JVM's job, seen through the state directory while its supervisor lives.
      TrainingJob attached = LocalCluster.create().stateDir(state).attach("default", "orphan")
          .orElseThrow();
      assertThat(attached.status().phase()).isEqualTo(JobPhase.RUNNING);
      assertThat(attached.logs().snapshot()).extracting(l -> l.text()).contains("sleeping");
    } finally {
      ChildJvms.kill(child);
    }

    ChildJvms.awaitGone(pids);
    assertThat(pids).as("no process outlives the SIGKILLed JVM")
        .noneMatch(LocalClusterFailureIT::alive);

    LocalCluster cluster = LocalCluster.create().stateDir(state);
    TrainingJob orphan = cluster.attach("default", "orphan").orElseThrow();
    JobStatus status = orphan.status();
    assertThat(status.phase()).isEqualTo(JobPhase.FAILED);
    assertThat(status.decidingCondition().orElseThrow().message())
        .contains("exited before the job ended", "its replicas ended with it");
    assertThat(status.pods()).singleElement().satisfies(pod -> {
      assertThat(pod.phase()).isEqualTo("Unknown");
      assertThat(pod.reason()).contains("SupervisorLost");
    });
    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> orphan.waitForCompletion(Duration.ofSeconds(5)));
    assertThat(failure.getMessage()).contains("exited before the job ended");

    orphan.delete();
    assertThat(cluster.list("default")).isEmpty();
  }

  /**
   * Ctrl-C sends SIGINT to the terminal's foreground process group. The child JVM gets SIGINT at
   * its default disposition, as a foreground job has it: this test's own JVM may have it ignored
   * (a build started with {@code &} from a script), and an ignored SIGINT is inherited.
   */
  @Test
  void aJvmStoppedWithCtrlCLeavesNoProcessOfAJobTiedToIt() throws Exception {
    Process child = ChildJvms.start(state, volumes, "interrupted", "tied", "default");
    List<Long> pids;
    try {
      pids = ChildJvms.readyPids(child);
      ChildJvms.signal(child, "INT");
    } finally {
      ChildJvms.kill(child);
    }

    ChildJvms.awaitGone(pids);
    assertThat(pids).as("no process outlives the interrupted JVM")
        .noneMatch(LocalClusterFailureIT::alive);
    LocalCluster.create().stateDir(state).attach("default", "interrupted")
        .ifPresent(TrainingJob::delete);
  }

  /**
   * A JVM started with {@code &} from a script has SIGINT ignored, and so would every process it
   * starts; a replica starts as a container does, with SIGINT at its default.
   */
  @ParameterizedTest
  @ValueSource(strings = {"tied", "detached"})
  void aReplicaStartsWithSigintAtItsDefaultWhenItsJvmIgnoresIt(String mode) throws Exception {
    Process child = ChildJvms.start(state, volumes, "signals", mode, "ignore");
    try {
      ChildJvms.readyPids(child);
      TrainingJob job = LocalCluster.create().stateDir(state).attach("default", "signals")
          .orElseThrow();

      assertThat(job.logs().snapshot()).extracting(l -> l.text())
          .startsWith("sigint-ignored False");
    } finally {
      ChildJvms.kill(child);
    }
  }

  private static void awaitPhase(TrainingJob job, JobPhase phase) throws InterruptedException {
    Instant end = Instant.now().plusSeconds(10);
    while (job.status().phase() != phase && Instant.now().isBefore(end)) {
      Thread.sleep(20);
    }
    assertThat(job.status().phase()).isEqualTo(phase);
  }

  private static void awaitLine(TrainingJob job, String text, int seconds)
      throws InterruptedException {
    Instant end = Instant.now().plusSeconds(seconds);
    while (Instant.now().isBefore(end)) {
      if (job.logs().snapshot().stream().anyMatch(l -> l.text().equals(text))) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no line '" + text + "' within " + seconds + " s: " + job.status());
  }
}

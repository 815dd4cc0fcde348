package dev.fairing4j.deploy.local;

import dev.fairing4j.core.testing.Tools;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deploy.internal.SubmitOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local jobs outlive the handle and the cluster object that started them: a second
 * {@code LocalCluster} lists and attaches to them, and a job whose JVM was SIGKILLed leaves no
 * process behind and reports honestly that its supervisor is gone.
 */
@Timeout(90)
class LocalClusterAttachIT {
  @TempDir
  Path state;
  @TempDir
  Path volumes;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
  }

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
    awaitLine(attached, "waiting for go", 2);
    assertThat(attached.status().phase()).isEqualTo(JobPhase.RUNNING);

    Files.createFile(volumes.resolve("attach-data/go"));
    JobStatus end = attached.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.replicaStatuses().get("Master").succeeded()).isEqualTo(1);
    assertThat(attached.logs().replica("master-0").snapshot()).extracting(l -> l.text())
        .containsExactly("waiting for go", "done");
    assertThat(second.attach("default", "nope")).isEmpty();
  }

  @Test
  void aSigkilledJvmLeavesNoProcessAndItsJobReportsTheLostSupervisor() throws Exception {
    Process child = startChildJvm("orphan");
    List<Long> pids;
    try {
      pids = replicaPids(child);

      // Another JVM's job, seen through the state directory while its supervisor lives.
      TrainingJob attached = LocalCluster.create().stateDir(state).attach("default", "orphan")
          .orElseThrow();
      assertThat(attached.status().phase()).isEqualTo(JobPhase.RUNNING);
      assertThat(attached.logs().snapshot()).extracting(l -> l.text()).contains("sleeping");
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }

    awaitGone(pids);
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

  @Test
  void aJvmStoppedWithCtrlCLeavesNoProcess() throws Exception {
    Process child = startChildJvm("interrupted");
    List<Long> pids;
    try {
      pids = replicaPids(child);
      // SIGINT, as Ctrl-C in the terminal running the JVM sends it.
      new ProcessBuilder("kill", "-INT", String.valueOf(child.pid())).inheritIO().start()
          .waitFor(10, TimeUnit.SECONDS);
      assertThat(child.waitFor(20, TimeUnit.SECONDS)).as("the child JVM exits on SIGINT").isTrue();
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }

    awaitGone(pids);
    assertThat(pids).as("no process outlives the interrupted JVM")
        .noneMatch(LocalClusterFailureIT::alive);
  }

  private Process startChildJvm(String job) throws java.io.IOException {
    String java = ProcessHandle.current().info().command().orElseThrow();
    return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        ChildJvmJob.class.getName(), state.toString(), volumes.toString(), job)
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  /** Waits for the child's READY line; the pids of its job's replicas, all alive. */
  private static List<Long> replicaPids(Process child) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8));
    String ready = CompletableFuture.supplyAsync(() -> {
      try {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith("READY ")) {
            return line;
          }
        }
        return "";
      } catch (java.io.IOException e) {
        return "";
      }
    }).get(60, TimeUnit.SECONDS);
    assertThat(ready).as("the child JVM started its job").startsWith("READY ");
    List<Long> pids = Arrays.stream(ready.substring(6).split(",")).map(Long::parseLong).toList();
    assertThat(pids).allMatch(LocalClusterFailureIT::alive);
    return pids;
  }

  private static void awaitGone(List<Long> pids) throws InterruptedException {
    Instant end = Instant.now().plusSeconds(5);
    while (pids.stream().anyMatch(LocalClusterFailureIT::alive) && Instant.now().isBefore(end)) {
      Thread.sleep(20);
    }
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

package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalTrainingJob;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A local job has a supervisor process of its own and outlives the JVM that submitted it, as a
 * cluster job does: a new JVM lists it, attaches to it, follows its logs and deletes it, and
 * after {@code delete()} none of its processes is left (checked by pid). A supervisor that dies
 * takes its replicas with it.
 */
@Timeout(90)
class LocalClusterDetachedIT extends LocalClusterTestBase {
  /** Ctrl-C (SIGINT, SIGINT at its default as in a terminal) or SIGKILL: the job runs on. */
  @ParameterizedTest
  @ValueSource(strings = {"INT", "KILL"})
  void aJobOutlivesItsJvmAndANewJvmListsAttachesFollowsAndDeletesIt(String signal)
      throws Exception {
    Process child = ChildJvms.start(state, volumes, "survivor", "detached", "default");
    List<Long> pids;
    try {
      pids = ChildJvms.readyPids(child);
      ChildJvms.signal(child, signal);
    } finally {
      ChildJvms.kill(child);
    }

    LocalCluster cluster = LocalCluster.create().stateDir(state).volumesDir(volumes);
    assertThat(cluster.list("default")).extracting(TrainingJob::name).containsExactly("survivor");
    TrainingJob job = cluster.attach("default", "survivor").orElseThrow();
    assertThat(job.status().phase()).isEqualTo(JobPhase.RUNNING);
    List<String> lines = new CopyOnWriteArrayList<>();
    try (LogStream stream = job.logs().follow(lines::add)) {
      // Written only now, after the submitting JVM is gone: the replica reads it and answers.
      Files.createFile(volumes.resolve("survivor-data/go"));
      awaitLine(lines, "[master-0] after go");
      assertThat(stream.isDone()).as("the job goes on").isFalse();
    }
    assertThat(pids).as("every process of the job still runs").allMatch(
        LocalClusterFailureIT::alive);

    job.delete();

    assertThat(pids).as("delete() returns once no process of the job is left")
        .noneMatch(LocalClusterFailureIT::alive);
    assertThat(cluster.list("default")).isEmpty();
    assertThat(state.resolve("jobs/default/survivor")).doesNotExist();
  }

  @Test
  void aKilledSupervisorTakesItsReplicasWithItAndTheJobSaysSo() throws Exception {
    LocalTrainingJob job = submit("headless", "import time\nprint('up', flush=True)\n"
        + "time.sleep(120)\n");
    List<Long> tree = awaitTree(job, 4);
    JobRecord record = new StateStore(state).read(state.resolve("jobs/default/headless"))
        .orElseThrow();
    assertThat(record.detached()).isTrue();
    assertThat(tree).contains(record.supervisorPid());

    ProcessHandle.of(record.supervisorPid()).orElseThrow().destroyForcibly();
    ChildJvms.awaitGone(tree);

    assertThat(tree).as("the replicas die with their supervisor")
        .noneMatch(LocalClusterFailureIT::alive);
    JobStatus status = job.status();
    assertThat(status.phase()).isEqualTo(JobPhase.FAILED);
    assertThat(status.decidingCondition().orElseThrow().message())
        .contains("supervisor process", "exited before the job ended", "supervisor.log");
  }

  @Test
  void aFinishedJobLeavesNoSupervisorBehind() throws Exception {
    LocalTrainingJob job = submit("quick", "print('done', flush=True)\n");
    JobRecord running = new StateStore(state).read(state.resolve("jobs/default/quick"))
        .orElseThrow();

    assertThat(job.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);

    assertThat(LocalClusterFailureIT.alive(running.supervisorPid()))
        .as("the supervisor process exits with its job").isFalse();
    assertThat(job.logs().snapshot()).extracting(l -> l.text()).containsExactly("done");
  }

  @Test
  @SuppressWarnings("deprecation") // killOnTimeout() keeps working while deprecated
  void aJobFailedFromAnotherJvmStopsThroughItsSupervisor() throws Exception {
    LocalTrainingJob job = submit("doomed", "import time\nprint('up', flush=True)\n"
        + "time.sleep(120)\n");
    List<Long> tree = awaitTree(job, 4);
    TrainingJob other = LocalCluster.create().stateDir(state).killOnTimeout()
        .attach("default", "doomed").orElseThrow();

    Throwable timeout = org.assertj.core.api.Assertions.catchThrowable(
        () -> other.waitForCompletion(Duration.ofMillis(300)));

    assertThat(timeout).hasMessageContaining("its processes were stopped");
    assertThat(tree).noneMatch(LocalClusterFailureIT::alive);
    JobStatus status = job.status();
    assertThat(status.phase()).isEqualTo(JobPhase.FAILED);
    assertThat(status.decidingCondition().orElseThrow().message()).contains("timed out");
    assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(JobFailedException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(5)))).isNotNull();
  }

  private LocalTrainingJob submit(String name, String script) {
    return submit(LocalCluster.create().stateDir(state).volumesDir(volumes), name, script);
  }

  private static LocalTrainingJob submit(LocalCluster cluster, String name, String script) {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/main.py"));
    return (LocalTrainingJob) cluster
        .submit(Manifests.pyTorchJob(name, 0, List.of("python", "/app/main.py"), "Never",
            Map.of()), context, SubmitOptions.DEFAULT, ProgressListener.NONE);
  }

  /**
   * A service that submits jobs for months keeps a bounded history: beyond the retention the
   * oldest finished job goes, record, logs and run directory, at the next submit or list.
   */
  @Test
  void finishedJobsBeyondTheRetentionGoWithTheirFilesAtTheNextSubmitAndList() throws Exception {
    LocalCluster cluster = LocalCluster.create().stateDir(state).volumesDir(volumes)
        .keepFinishedJobs(1, Duration.ofDays(30));
    submit(cluster, "first", "print('one', flush=True)\n").waitForCompletion(
        Duration.ofSeconds(30));
    submit(cluster, "second", "print('two', flush=True)\n").waitForCompletion(
        Duration.ofSeconds(30));
    assertThat(state.resolve("jobs/default/first")).as("one finished job is kept, and the"
        + " second was running when it was submitted").exists();

    TrainingJob third = submit(cluster, "third", "print('three', flush=True)\n");
    assertThat(state.resolve("jobs/default/first")).as("gone at the third submit")
        .doesNotExist();
    third.waitForCompletion(Duration.ofSeconds(30));

    assertThat(cluster.list("default")).extracting(TrainingJob::name).containsExactly("third");
    assertThat(state.resolve("jobs/default/second")).doesNotExist();
    assertThat(third.logs().snapshot()).anyMatch(l -> l.text().equals("three"));
  }

  /** Waits until the job's processes (supervisor, bwrap, its pid-1 helper, python) run. */
  private static List<Long> awaitTree(LocalTrainingJob job, int size) throws Exception {
    Instant end = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(end)) {
      List<Long> tree = job.processTree();
      if (tree.size() >= size && !job.logs().snapshot().isEmpty()) {
        return tree;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the job did not start: " + job.status());
  }

  private static void awaitLine(List<String> lines, String line) throws InterruptedException {
    Instant end = Instant.now().plusSeconds(30);
    while (!lines.contains(line) && Instant.now().isBefore(end)) {
      Thread.sleep(20);
    }
    assertThat(lines).contains(line);
  }
}

package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.OnTimeout;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalTrainingJob;
import dev.fairing4j.deployer.local.internal.runtime.GpuProbe;
import dev.fairing4j.deployer.local.internal.runtime.ProcessGroups;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The failure paths, each bounded to seconds: a failing replica, a script that keeps failing
 * under the default settings, restarts under ExitCode and OnFailure, a timeout and a delete that leave no process behind (checked by pid), and a GPU
 * request this machine cannot satisfy.
 */
@Timeout(90)
class LocalClusterFailureIT extends LocalClusterTestBase {
  @Test
  void exitOneFailsTheJobWithTheExitCodeAndTheLastLines() {
    TrainingJob job = submit(cluster(), masterOnly("fails", "Never", Map.of()), String.join("\n",
        "import sys",
        "for i in range(1, 31):",
        "    print(f'line {i}')",
        "print('cannot train: no data', file=sys.stderr)",
        "sys.exit(1)"));

    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(30)));

    assertThat(failure.exitCode()).contains(1);
    assertThat(failure.failedReplica()).contains("master-0");
    assertThat(failure.lastLines()).hasSize(20).endsWith("line 30", "cannot train: no data");
    assertThat(failure.getMessage()).contains("exited with code 1", "cannot train: no data",
        "PyTorchJob fails is failed because 1 Master replica(s) failed.");
    JobStatus status = failure.status();
    assertThat(status.phase()).isEqualTo(JobPhase.FAILED);
    assertThat(status.conditions()).extracting(JobCondition::type, JobCondition::status,
        JobCondition::reason).containsExactly(
            org.assertj.core.groups.Tuple.tuple("Created", true, "PyTorchJobCreated"),
            org.assertj.core.groups.Tuple.tuple("Running", false, "PyTorchJobRunning"),
            org.assertj.core.groups.Tuple.tuple("Failed", true, "PyTorchJobFailed"));
    assertThat(status.pods()).singleElement().satisfies(pod -> {
      assertThat(pod.name()).isEqualTo("fails-master-0");
      assertThat(pod.phase()).isEqualTo("Failed");
      assertThat(pod.exitCode()).contains(1);
      assertThat(pod.restarts()).isZero();
    });
    assertThat(status.replicaStatuses().get("Master").failed()).isEqualTo(1);
  }

  @Test
  void aScriptThatKeepsFailingUnderDefaultSettingsFailsTheJobWithinAMinute() {
    // Through the deployer with nothing set: OnFailure and the default backoffLimit it writes.
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(String.join("\n",
            "import sys",
            "print('loading data', flush=True)",
            "print('cannot train: no data', file=sys.stderr)",
            "sys.exit(1)") + "\n"))
        .withCommand(List.of("python", "/app/main.py"));
    TrainingJob job = Deployers.pyTorchJob("crashes").workers(0).on(cluster())
        .asDeployer().deploy(context, Optional.empty(), ProgressListener.NONE);

    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(60)));

    assertThat(failure).as("failed within the minute, not restarting forever").isNotNull();
    assertThat(failure.failedReplica()).contains("master-0");
    assertThat(failure.exitCode()).contains(1);
    assertThat(failure.lastLines()).endsWith("--- run 4 (restart 3) ---", "loading data",
        "cannot train: no data");
    assertThat(failure.lastLines()).contains("--- run 1 ---", "--- run 2 (restart 1) ---");
    // The marks are for the report: a log stream delivers only the script's lines.
    assertThat(job.logs().snapshot()).extracting(LogLine::text)
        .containsOnly("loading data", "cannot train: no data").hasSize(8);
    assertThat(failure.getMessage())
        .contains("replica master-0 exited with code " + 1 + " after "
            + JobDeployer.DEFAULT_BACKOFF_LIMIT + " restarts")
        .contains("reached the specified backoff limit")
        .contains(".backoffLimit(n)").contains("RestartPolicy.NEVER");
  }

  /**
   * Master and Worker both crash: every pod stays in the failed job's table (the Master, whose
   * restart was pending at the limit, was left out), and the report counts restarts as
   * backoffLimit does, over all replicas together.
   */
  @Test
  void aFailedJobListsEveryPodAndCountsRestartsAsBackoffLimitDoes() {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText("import sys\nprint('step 1', flush=True)\n"
            + "sys.exit(3)\n"))
        .withCommand(List.of("python", "/app/main.py"));
    TrainingJob job = Deployers.pyTorchJob("x-fail").workers(1).on(cluster())
        .asDeployer().deploy(context, Optional.empty(), ProgressListener.NONE);

    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(60)));

    JobStatus status = failure.status();
    assertThat(status.pods()).extracting(PodInfo::name)
        .containsExactlyInAnyOrder("x-fail-master-0", "x-fail-worker-0");
    assertThat(status.pods()).allSatisfy(pod -> assertThat(pod.phase()).isEqualTo("Failed"));
    // Each pod's restarts are the runs its log shows, less one: a restart the job's end called
    // off (the other replica's, pending when the limit was reached) is not counted.
    for (PodInfo pod : status.pods()) {
      String replica = pod.replicaType().toLowerCase(java.util.Locale.ROOT) + "-" + pod.index();
      long runs = job.logs().snapshot().stream()
          .filter(l -> l.replica().equals(replica) && l.text().equals("step 1")).count();
      assertThat(pod.restarts()).as(replica).isEqualTo((int) runs - 1);
    }
    int all = status.pods().stream().mapToInt(PodInfo::restarts).sum();
    assertThat(all).as("the limit counts the restarts asked for, one may be called off")
        .isBetween(JobDeployer.DEFAULT_BACKOFF_LIMIT - 1, JobDeployer.DEFAULT_BACKOFF_LIMIT);
    assertThat(failure.getMessage()).contains("restarts of all its replicas together reach"
        + " .backoffLimit(n)");
    if (failure.failedReplica().flatMap(r -> status.pods().stream().filter(p -> r.equals(
        p.replicaType().toLowerCase(java.util.Locale.ROOT) + "-" + p.index())).findFirst())
        .map(p -> p.restarts() < all).orElse(false)) {
      assertThat(failure.getMessage()).contains("(" + all + " restarts of all replicas"
          + " together)");
    }
    assertThat(TrainingClient.connect(cluster()).get("x-fail").toString())
        .contains("x-fail-master-0", "x-fail-worker-0");
  }

  @Test
  void exitCode137UnderExitCodePolicyIsRestartedAndThenSucceeds() {
    // The marker lives on a claim, as it would have to on a cluster where the pod is recreated.
    TrainingJob job = submit(cluster(), masterOnly("oom", "ExitCode", Map.of("backoffLimit", 3)),
        String.join("\n",
            "import os, signal",
            "marker = '/data/first-attempt-done'",
            "if not os.path.exists(marker):",
            "    open(marker, 'w').close()",
            "    print('attempt 1: killed', flush=True)",
            "    os.kill(os.getpid(), signal.SIGKILL)",
            "print('attempt 2: ok', flush=True)"));

    JobStatus end = job.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    PodInfo master = end.pods().get(0);
    assertThat(master.restarts()).isEqualTo(1);
    assertThat(master.exitCode()).contains(0);
    assertThat(job.logs().snapshot()).extracting(l -> l.text())
        .containsSubsequence("attempt 1: killed", "attempt 2: ok");
    assertThat(end.conditions()).extracting(JobCondition::type)
        .containsExactly("Created", "Running", "Succeeded");
  }

  @Test
  void aCrashRestartedInPlaceIsToldInTheJobsEventsAsTheOperatorAndTheKubeletWouldTellIt() {
    TrainingJob job = submit(cluster(), masterOnly("once", "OnFailure", Map.of("backoffLimit",
        3)), String.join("\n",
            "import os",
            "marker = '/data/crashed-once'",
            "if not os.path.exists(marker):",
            "    open(marker, 'w').close()",
            "    raise SystemExit(4)",
            "print('second run: ok', flush=True)"));

    assertThat(job.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    List<JobEvent> events = job.events();

    assertThat(events).extracting(e -> e.type() + " " + e.reason() + " " + e.object())
        .containsExactly(
            "Normal SuccessfulCreatePod pytorchjob/once",
            "Normal Started pod/once-master-0",
            "Warning ExitedWithCode pod/once-master-0",
            "Warning BackOff pod/once-master-0",
            "Normal Started pod/once-master-0",
            "Normal PyTorchJobSucceeded pytorchjob/once");
    assertThat(events.get(0).message()).isEqualTo("Created pod: once-master-0");
    assertThat(events.get(2).message()).contains("4");
    assertThat(events).extracting(JobEvent::time).isSorted();

    job.delete();
    assertThatThrownBy(job::events).hasMessageContaining("the local job no longer exists");
  }

  @Test
  void exitCodeBelow128UnderExitCodePolicyFailsWithoutRestart() {
    TrainingJob job = submit(cluster(), masterOnly("bug", "ExitCode", Map.of("backoffLimit", 3)),
        "raise SystemExit(3)");

    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(30)));

    assertThat(failure.exitCode()).contains(3);
    assertThat(failure.status().pods().get(0).restarts()).isZero();
  }

  @Test
  void onFailureRestartsUpToTheBackoffLimit() {
    TrainingJob job = submit(cluster(), masterOnly("flaky", "OnFailure", Map.of("backoffLimit",
        2)), "print('trying', flush=True)\nraise SystemExit(2)");

    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(30)));

    assertThat(failure.status().pods().get(0).restarts()).isEqualTo(2);
    assertThat(job.logs().snapshot()).filteredOn(l -> l.text().equals("trying")).hasSize(3);
    assertThat(failure.getMessage()).contains("reached the specified backoff limit");
    assertThat(failure.warnings()).anyMatch(w -> w.startsWith("BackOff flaky-master-0"));
  }

  @Test
  @SuppressWarnings("deprecation") // killOnTimeout() keeps working while deprecated
  void timeoutWithKillOnTimeoutLeavesNoProcessBehind() throws Exception {
    TrainingJob job = submit(cluster().killOnTimeout(), masterOnly("slow", "Never", Map.of()),
        SLEEPER);
    List<Long> pids = awaitSleeper(job);

    JobTimeoutException timeout = catchThrowableOfType(JobTimeoutException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(2)));

    assertThat(timeout.getMessage()).contains("its processes were stopped");
    assertThat(pids).allMatch(pid -> !alive(pid));
    JobStatus status = job.status();
    assertThat(status.phase()).isEqualTo(JobPhase.FAILED);
    assertThat(status.decidingCondition().orElseThrow().message()).contains("timed out");
    // The record and logs stay readable after the stop.
    assertThat(job.logs().snapshot()).extracting(l -> l.text()).contains("sleeping");
  }

  /**
   * {@code OnTimeout.DELETE} does on this machine what it does on Kubernetes: the job is gone
   * when the timeout is thrown, no process of it left; SUSPEND, which a local process cannot
   * honour, is refused before any waiting and leaves the job running.
   */
  @Test
  void aWaitThatTimesOutWithOnTimeoutDeleteRemovesTheJobAndEveryProcess() throws Exception {
    LocalCluster cluster = cluster();
    TrainingJob job = submit(cluster, masterOnly("bounded", "Never", Map.of()), SLEEPER);
    List<Long> pids = awaitSleeper(job);

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMillis(300), OnTimeout.SUSPEND))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("onTimeout");
          assertThat(e.fix()).contains("OnTimeout.DELETE");
        });
    assertThat(pids).allMatch(LocalClusterFailureIT::alive);

    JobTimeoutException timeout = catchThrowableOfType(JobTimeoutException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(1), OnTimeout.DELETE));

    assertThat(timeout.getMessage()).contains("deleted it");
    assertThat(timeout.lastStatus().phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(pids).noneMatch(LocalClusterFailureIT::alive);
    assertThat(cluster.attach("default", "bounded")).isEmpty();
    assertThat(state.resolve("jobs/default/bounded")).doesNotExist();
  }

  @Test
  void timeoutWithoutTheOptionKeepsRunningAndDeleteStopsEverything() throws Exception {
    LocalCluster cluster = cluster();
    TrainingJob job = submit(cluster, masterOnly("keep", "Never", Map.of()), SLEEPER);
    List<Long> pids = awaitSleeper(job);

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMillis(500)))
        .isInstanceOf(JobTimeoutException.class).hasMessageContaining("keeps running");
    assertThat(pids).allMatch(LocalClusterFailureIT::alive);

    Instant before = Instant.now();
    job.delete();
    System.out.println("[measure] delete() of a running 1-replica job: "
        + Duration.between(before, Instant.now()).toMillis() + " ms");

    assertThat(pids).allMatch(pid -> !alive(pid));
    assertThat(cluster.attach("default", "keep")).isEmpty();
    assertThat(state.resolve("jobs/default/keep")).doesNotExist();
    assertThat(volumes.resolve("keep-data/started")).as("volume directories are kept")
        .isRegularFile();
  }

  /**
   * This machine never gains GPUs: a job asking for more than it has is refused at submit with
   * the fix, once (it used to wait out the caller's whole timeout as Unschedulable, then print
   * the hint four times).
   */
  @Test
  void aGpuRequestThisMachineCannotMeetIsRefusedAtOnceWithTheFix() {
    long gpus = GpuProbe.count() + 1;
    RenderedJob job = masterOnly("gpu", "Never", Map.of());
    @SuppressWarnings("unchecked")
    Map<String, Object> container = (Map<String, Object>) ((List<Object>) ((Map<String, Object>)
        ((Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>)
            job.trainingObject().get("spec")).get("pytorchReplicaSpecs")).get("Master"))
            .get("template")).get("spec")).get("containers")).get(0);
    container.put("resources", Map.of("limits", Map.of("nvidia.com/gpu", gpus)));

    long started = System.nanoTime();
    InvalidInputException refused = catchThrowableOfType(InvalidInputException.class,
        () -> submit(cluster(), job, "print('ran')"));
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    System.out.println("[measure] GPU request refused after " + took.toMillis() + " ms");

    assertThat(refused).isNotNull();
    assertThat(refused.field()).isEqualTo("gpus");
    assertThat(refused.getMessage()).contains("asks for " + gpus + " nvidia.com/gpu",
        "could never be scheduled here");
    assertThat(refused.getMessage().split("ignoreGpuRequests\\(\\)", -1)).hasSize(2);
    assertThat(cluster().list("default")).isEmpty();

    TrainingJob ignoring = submit(cluster().ignoreGpuRequests(), job, "print('ran')");
    assertThat(ignoring.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
  }

  /**
   * A supervisor task that fails, here because the record cannot be written (job.json has become
   * a directory), fails the job and stops its processes: it is never only logged, which left the
   * job Running with nobody recording it.
   */
  @Test
  void aSupervisorTaskThatFailsFailsTheJobAndStopsIt() throws Exception {
    Map<String, Object> container = Manifests.container("pytorch",
        List.of("python", "/app/main.py"), Map.of(), 23456, "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("data", "/data")));
    RenderedJob manifest = Manifests.pyTorchJob("unrecorded", 1, container, "Never", Map.of(),
        List.of(Manifests.pvcVolume("data", "unrecorded-data")), null);
    // tied to this JVM: its supervisor's state is readable here without the file
    TrainingJob job = submit(cluster().tiedToJvm(), manifest, String.join("\n",
        "import os, time",
        "if os.environ['RANK'] == '0':",
        "    print('sleeping', flush=True)",
        "    time.sleep(60)",
        "end = time.time() + 30",
        "while not os.path.exists('/data/go') and time.time() < end:",
        "    time.sleep(0.05)"));
    List<Long> pids = awaitSleeper(job);
    Path record = state.resolve("jobs/default/unrecorded/job.json");
    Files.delete(record);
    Files.createDirectories(record.resolve("in-the-way"));

    // The worker ends: a change the supervisor must record, and cannot.
    Files.createFile(volumes.resolve("unrecorded-data/go"));
    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(30)));

    assertThat(failure).as("the job failed rather than stay Running unrecorded").isNotNull();
    assertThat(failure.getMessage()).contains("local supervisor failed", "job.json");
    assertThat(pids).noneMatch(LocalClusterFailureIT::alive);
    job.delete();
    assertThat(state.resolve("jobs/default/unrecorded")).doesNotExist();
  }

  private static final String SLEEPER = String.join("\n",
      "import subprocess, time",
      "open('/data/started', 'w').close()",
      "child = subprocess.Popen(['sleep', '60'])",
      "print('sleeping', flush=True)",
      "time.sleep(60)");

  /** Waits until the sleeper runs, then returns every pid of the job's processes. */
  private static List<Long> awaitSleeper(TrainingJob job) throws InterruptedException {
    Instant end = Instant.now().plusSeconds(20);
    while (Instant.now().isBefore(end)) {
      boolean printed = job.logs().snapshot().stream().anyMatch(l -> l.text().equals("sleeping"));
      List<Long> tree = ((LocalTrainingJob) job).processTree();
      // bwrap, its pid-1 helper and python (with sleep, or a second replica)
      if (printed && tree.size() >= 4) {
        return tree;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the sleeper did not start: " + job.status());
  }

  /**
   * Whether {@code pid} still runs. A zombie does not: it has exited and only waits for init to
   * collect its exit status. bwrap's pid-1 helper becomes one when the outer bwrap exits first;
   * systemd reaps it at once, a container's minimal init may take a second or two, and
   * {@link ProcessHandle#isAlive()} counts it alive until then.
   */
  static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
        && ProcessGroups.stat(pid).map(s -> s.state() != 'Z').orElse(false);
  }

  private LocalCluster cluster() {
    return LocalCluster.create().stateDir(state).volumesDir(volumes);
  }

  private static TrainingJob submit(LocalCluster cluster, RenderedJob job, String script) {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script + "\n"))
        .withCommand(List.of("python", "/app/main.py"));
    return cluster.submit(job, context, SubmitOptions.DEFAULT, ProgressListener.NONE);
  }

  /** A PyTorchJob with only a Master, a claim {@code <name>-data} at /data. */
  private static RenderedJob masterOnly(String name, String restartPolicy,
      Map<String, Object> runPolicy) {
    Map<String, Object> container = Manifests.container("pytorch",
        List.of("python", "/app/main.py"), Map.of(), 23456, "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("data", "/data")));
    return Manifests.pyTorchJob(name, 0, container, restartPolicy, runPolicy,
        List.of(Manifests.pvcVolume("data", name + "-data")), null);
  }

}

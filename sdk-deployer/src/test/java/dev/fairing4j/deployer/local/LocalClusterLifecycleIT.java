package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.ReplicaStatus;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalTrainingJob;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operator's lifecycle rules on the local cluster: who decides the end and what the
 * clean-pod policy stops then (replica counts adding up in every case), deadlines, a Job's
 * parallelism, and logs that follow restarts and honour tail/since.
 */
@Timeout(60)
class LocalClusterLifecycleIT extends LocalClusterTestBase {
  /**
   * The operator with cleanPodPolicy None (its default) deletes nothing when the Master
   * succeeds: a Worker still finishing is left to finish, and counts as succeeded from then on.
   */
  @Test
  void whenTheMasterSucceedsAWorkerStillFinishingIsLeftToFinish() throws Exception {
    TrainingJob job = submit(withClaim("finish", 1, Map.of()), MASTER_THEN_WORKER,
        ProgressListener.NONE);

    JobStatus end = job.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(pod(end, "Worker").phase()).as("the worker still runs").isEqualTo("Running");
    assertThat(end.replicaStatuses().get("Master")).isEqualTo(new ReplicaStatus(0, 1, 0));
    assertThat(end.replicaStatuses().get("Worker")).as("active counts as succeeded once the"
        + " job succeeded, as the operator counts it").isEqualTo(new ReplicaStatus(0, 1, 0));

    List<String> lines = new CopyOnWriteArrayList<>();
    try (LogStream stream = job.logs().replica("worker-0").follow(lines::add)) {
      Files.createFile(volumes.resolve("finish-data/go"));
      assertThat(stream.awaitEnd(Duration.ofSeconds(30))).as("the worker finishes").isTrue();
    }
    JobStatus finished = job.status();
    assertThat(lines).endsWith("[worker-0] worker done");
    assertThat(finished.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(finished.pods()).extracting(PodInfo::phase).containsOnly("Succeeded");
    assertThat(pod(finished, "Worker").exitCode()).contains(0);
    assertThat(finished.replicaStatuses().get("Worker")).isEqualTo(new ReplicaStatus(0, 1, 0));
  }

  /**
   * cleanPodPolicy Running deletes the pods still running when the job ends; All deletes every
   * pod. A deleted pod is no longer listed (its log stays readable here) and counts where the
   * operator counts it: as succeeded in a succeeded job.
   */
  @ParameterizedTest
  @ValueSource(strings = {"Running", "All"})
  void aCleanPodPolicyOtherThanNoneStopsTheWorkerWhenTheMasterSucceeds(String policy)
      throws Exception {
    String name = "clean-" + policy.toLowerCase(java.util.Locale.ROOT);
    LocalTrainingJob job = (LocalTrainingJob) submit(withClaim(name, 1,
        Map.of("cleanPodPolicy", policy)), MASTER_THEN_WORKER, ProgressListener.NONE);
    awaitLine(job, "worker-0", "worker waiting");
    List<Long> pids = job.processTree();

    JobStatus end = job.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(pids).as("nothing of the job runs once the wait returns")
        .noneMatch(LocalClusterFailureIT::alive);
    assertThat(end.pods()).extracting(PodInfo::name).containsExactlyElementsOf(
        policy.equals("All") ? List.of() : List.of(name + "-master-0"));
    assertThat(end.replicaStatuses().get("Master")).isEqualTo(new ReplicaStatus(0, 1, 0));
    assertThat(end.replicaStatuses().get("Worker")).isEqualTo(new ReplicaStatus(0, 1, 0));
    assertThat(job.logs().replica("worker-0").snapshot()).extracting(LogLine::text)
        .containsExactly("worker waiting");
  }

  /**
   * The success rules fail the job when the Master fails; with cleanPodPolicy None the operator
   * leaves the Worker running (delete() stops it).
   */
  @Test
  void aFailedMasterLeavesItsWorkerRunningUnderCleanPodPolicyNone() throws Exception {
    LocalTrainingJob job = (LocalTrainingJob) submit(withClaim("halfway", 1, Map.of()),
        MASTER_THEN_WORKER.replace("print('master done', flush=True)",
            "raise SystemExit(1)"), ProgressListener.NONE);
    awaitLine(job, "worker-0", "worker waiting");
    List<Long> pids = job.processTree();

    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> job.waitForCompletion(Duration.ofSeconds(30)));

    assertThat(failure.failedReplica()).contains("master-0");
    assertThat(pod(failure.status(), "Worker").phase()).isEqualTo("Running");
    assertThat(failure.status().replicaStatuses().get("Master"))
        .isEqualTo(new ReplicaStatus(0, 0, 1));
    assertThat(failure.status().replicaStatuses().get("Worker"))
        .isEqualTo(new ReplicaStatus(1, 0, 0));

    job.delete();
    assertThat(pids).noneMatch(LocalClusterFailureIT::alive);
  }

  @Test
  void aTfJobUnderCleanPodPolicyRunningStopsItsParameterServerWhenTheChiefSucceeds() {
    String script = String.join("\n",
        "import json, os, time",
        "task = json.loads(os.environ['TF_CONFIG'])['task']",
        "print('task', task['type'], task['index'], flush=True)",
        "if task['type'] == 'ps':",
        "    time.sleep(60)",
        "");
    List<ProgressEvent.PhaseChanged> phases = new CopyOnWriteArrayList<>();
    RenderedJob base = Manifests.tfJob("tfchief", 1, List.of("python", "/app/main.py"));
    Map<String, Object> object = LocalClusterEnvContractIT.copy(base.trainingObject());
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) object.get("spec");
    spec.put("runPolicy", Map.of("backoffLimit", 0, "cleanPodPolicy", "Running"));

    TrainingJob job = submit(new RenderedJob("TFJob", "tfchief", "default", List.of(object)),
        script, e -> {
          if (e instanceof ProgressEvent.PhaseChanged p) {
            phases.add(p);
          }
        });
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.decidingCondition().orElseThrow().reason()).isEqualTo("TFJobSucceeded");
    // The Worker's pod goes too if it had not ended before the Chief: it counts as succeeded
    // either way.
    assertThat(end.pods()).extracting(PodInfo::replicaType).as("the PS pod was deleted")
        .contains("Chief").doesNotContain("PS");
    assertThat(end.replicaStatuses()).containsEntry("Chief", new ReplicaStatus(0, 1, 0))
        .containsEntry("PS", new ReplicaStatus(0, 1, 0))
        .containsEntry("Worker", new ReplicaStatus(0, 1, 0));
    awaitPhase(phases, JobPhase.SUCCEEDED);
    // The first change has no previous phase, as on Kubernetes ("mnist: Created").
    assertThat(phases.get(0).previous()).isNull();
  }

  @Test
  void anActiveDeadlineFailsTheJobAndStopsItsReplicas() {
    RenderedJob job = Manifests.pyTorchJob("late", 1, List.of("python", "/app/main.py"),
        "Never", Map.of("activeDeadlineSeconds", 1));

    TrainingJob handle = submit(job, "import time\nprint('up', flush=True)\ntime.sleep(60)\n",
        ProgressListener.NONE);
    Instant started = Instant.now();
    JobFailedException failure = catchThrowableOfType(JobFailedException.class,
        () -> handle.waitForCompletion(Duration.ofSeconds(20)));

    assertThat(Duration.between(started, Instant.now())).isLessThan(Duration.ofSeconds(10));
    assertThat(failure.getMessage()).contains("active longer than specified deadline");
    // The operator deletes every pod at the deadline, whatever the clean-pod policy.
    assertThat(failure.status().pods()).isEmpty();
    assertThat(failure.status().replicaStatuses().get("Master"))
        .isEqualTo(new ReplicaStatus(0, 0, 1));
    assertThat(failure.status().replicaStatuses().get("Worker"))
        .isEqualTo(new ReplicaStatus(0, 0, 1));
    assertThat(handle.logs().replica("master-0").snapshot()).extracting(LogLine::text)
        .containsExactly("up");
  }

  @Test
  void aJobWithParallelismOneRunsItsIndexesOneAfterAnother() {
    RenderedJob base = Manifests.indexedJob("seq", 3, List.of("python", "/app/main.py"));
    Map<String, Object> object = LocalClusterEnvContractIT.copy(base.trainingObject());
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) object.get("spec");
    spec.put("parallelism", 1);
    List<Map<String, Object>> objects = new ArrayList<>(base.objects());
    objects.set(objects.size() - 1, object);
    String script = String.join("\n",
        "import os, time",
        "print('start', os.environ['JOB_COMPLETION_INDEX'], time.time(), flush=True)",
        "time.sleep(0.2)",
        "print('end', os.environ['JOB_COMPLETION_INDEX'], time.time(), flush=True)",
        "");

    TrainingJob job = submit(new RenderedJob("Job", "seq", "default", objects), script,
        ProgressListener.NONE);
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.replicaStatuses().get("Pod").succeeded()).isEqualTo(3);
    List<double[]> spans = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      List<String> lines = job.logs().replica("pod-" + i).snapshot().stream()
          .map(LogLine::text).toList();
      spans.add(new double[] {Double.parseDouble(lines.get(0).split(" ")[2]),
          Double.parseDouble(lines.get(1).split(" ")[2])});
    }
    assertThat(spans.get(1)[0]).isGreaterThanOrEqualTo(spans.get(0)[1]);
    assertThat(spans.get(2)[0]).isGreaterThanOrEqualTo(spans.get(1)[1]);
  }

  @Test
  void aLogStreamFollowsRestartsAndEndsWithTheJob() {
    RenderedJob job = Manifests.pyTorchJob("restarts", 0, List.of("python", "/app/main.py"),
        "OnFailure", Map.of("backoffLimit", 2));
    TrainingJob handle = submit(job, "print('trying', flush=True)\nraise SystemExit(1)\n",
        ProgressListener.NONE);
    List<String> lines = new CopyOnWriteArrayList<>();

    try (LogStream stream = handle.logs().follow(lines::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(30))).isTrue();
      assertThat(stream.isDone()).isTrue();
    }

    assertThat(lines).containsExactly("[master-0] trying", "[master-0] trying",
        "[master-0] trying");
  }

  @Test
  void logsHonourTailAndSince() throws Exception {
    String script = String.join("\n",
        "import os, time",
        "for i in range(5):",
        "    print('early', i, flush=True)",
        "time.sleep(0.5)",
        "for i in range(3):",
        "    print('late', i, flush=True)",
        "if os.environ['RANK'] == '0':",
        "    time.sleep(1)  # the Master decides the end: let the Worker finish first",
        "");
    TrainingJob job = submit(Manifests.pyTorchJob("window", 1, List.of("python",
        "/app/main.py"), "Never", Map.of()), script, ProgressListener.NONE);
    job.waitForCompletion(Duration.ofSeconds(30));
    Instant lateStart = job.logs().replica("master-0").snapshot().stream()
        .filter(l -> l.text().startsWith("late")).findFirst().orElseThrow().timestamp()
        .orElseThrow();

    assertThat(job.logs().tail(2).snapshot()).extracting(LogLine::toString).containsExactly(
        "[master-0] late 1", "[master-0] late 2", "[worker-0] late 1", "[worker-0] late 2");
    assertThat(job.logs().replica("master").since(lateStart.minusMillis(1)).snapshot())
        .extracting(LogLine::text).containsExactly("late 0", "late 1", "late 2");
    List<String> streamed = new CopyOnWriteArrayList<>();
    try (LogStream stream = job.logs().replica("worker-0").tail(1).follow(streamed::add)) {
      assertThat(stream.awaitEnd(Duration.ofSeconds(5))).isTrue();
    }
    assertThat(streamed).containsExactly("[worker-0] late 2");
  }

  /**
   * Rank 1 says it is up and waits for {@code /data/go}; rank 0 ends as soon as rank 1 is up
   * (each waits at most 30 s).
   */
  private static final String MASTER_THEN_WORKER = String.join("\n",
      "import os, time",
      "end = time.time() + 30",
      "if os.environ['RANK'] == '0':",
      "    while not os.path.exists('/data/worker-up') and time.time() < end:",
      "        time.sleep(0.05)",
      "    print('master done', flush=True)",
      "else:",
      "    print('worker waiting', flush=True)",
      "    open('/data/worker-up', 'w').close()",
      "    while not os.path.exists('/data/go') and time.time() < end:",
      "        time.sleep(0.05)",
      "    print('worker done', flush=True)",
      "");

  /** A PyTorchJob with a Master and {@code workers} Workers, a claim {@code <name>-data}. */
  private static RenderedJob withClaim(String name, int workers, Map<String, Object> runPolicy) {
    Map<String, Object> container = Manifests.container("pytorch",
        List.of("python", "/app/main.py"), Map.of(), 23456, "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("data", "/data")));
    return Manifests.pyTorchJob(name, workers, container, "Never", runPolicy,
        List.of(Manifests.pvcVolume("data", name + "-data")), null);
  }

  private static PodInfo pod(JobStatus status, String type) {
    return status.pods().stream().filter(p -> p.replicaType().equals(type)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + type + " pod in " + status.pods()));
  }

  private static void awaitLine(TrainingJob job, String replica, String text)
      throws InterruptedException {
    Instant end = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(end)) {
      if (job.logs().replica(replica).snapshot().stream().anyMatch(l -> l.text().equals(text))) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no line '" + text + "' from " + replica + ": " + job.status());
  }

  /** Phase events of a job with a supervisor process arrive a moment after the change. */
  private static void awaitPhase(List<ProgressEvent.PhaseChanged> phases, JobPhase phase) {
    Instant end = Instant.now().plusSeconds(10);
    while (phases.stream().noneMatch(p -> p.current() == phase) && Instant.now().isBefore(end)) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    assertThat(phases).extracting(ProgressEvent.PhaseChanged::current).endsWith(phase);
  }

  private TrainingJob submit(RenderedJob job, String script, ProgressListener progress) {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/main.py"));
    return LocalCluster.create().stateDir(state).volumesDir(volumes)
        .submit(job, context, SubmitOptions.DEFAULT, progress);
  }
}

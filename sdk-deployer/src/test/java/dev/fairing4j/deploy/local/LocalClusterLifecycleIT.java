package dev.fairing4j.deploy.local;

import dev.fairing4j.core.testing.Tools;
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
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deploy.internal.RenderedJob;
import dev.fairing4j.deploy.internal.SubmitOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's lifecycle rules on the local cluster: who decides the end (and what is stopped
 * then), deadlines, a Job's parallelism, and logs that follow restarts and honour tail/since.
 */
@Timeout(60)
class LocalClusterLifecycleIT {
  @TempDir
  Path state;
  @TempDir
  Path volumes;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
  }

  @Test
  void aTfJobEndsWithItsChiefAndItsParameterServerIsStopped() {
    String script = String.join("\n",
        "import json, os, time",
        "task = json.loads(os.environ['TF_CONFIG'])['task']",
        "print('task', task['type'], task['index'], flush=True)",
        "if task['type'] == 'ps':",
        "    time.sleep(60)",
        "");
    List<ProgressEvent.PhaseChanged> phases = new CopyOnWriteArrayList<>();

    TrainingJob job = submit(Manifests.tfJob("tfchief", 1, List.of("python", "/app/main.py")),
        script, e -> {
          if (e instanceof ProgressEvent.PhaseChanged p) {
            phases.add(p);
          }
        });
    JobStatus end = job.waitForCompletion(Duration.ofSeconds(30));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.decidingCondition().orElseThrow().reason()).isEqualTo("TFJobSucceeded");
    PodInfo ps = end.pods().stream().filter(p -> p.replicaType().equals("PS")).findFirst()
        .orElseThrow();
    assertThat(ps.phase()).isEqualTo("Failed");
    assertThat(ps.reason()).contains("Stopped");
    assertThat(end.replicaStatuses().get("PS").failed()).as("a stopped replica is no failure")
        .isZero();
    assertThat(phases).extracting(ProgressEvent.PhaseChanged::current).endsWith(
        JobPhase.SUCCEEDED);
    assertThat(phases.get(0).previous()).isEqualTo(JobPhase.PENDING);
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
    assertThat(failure.status().pods()).allSatisfy(p -> assertThat(p.phase())
        .isEqualTo("Failed"));
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

  private TrainingJob submit(RenderedJob job, String script, ProgressListener progress) {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/main.py"));
    return LocalCluster.create().stateDir(state).volumesDir(volumes)
        .submit(job, context, SubmitOptions.DEFAULT, progress);
  }
}

package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code waitFor(phases, timeout, onChange)} on the local cluster (the Kubeflow SDK's
 * {@code wait_for_job_status} with callbacks): it returns at a phase that is not the end while
 * the job goes on, hears each phase once, takes a failure it was asked for as an answer and any
 * other failure as the failure it is, ends at a success it was not asked for, and a timeout or a
 * callback that throws leaves the job running.
 */
@Timeout(90)
class LocalWaitForIT extends LocalClusterTestBase {
  private static final String SLEEPS = "import time\nprint('up', flush=True)\ntime.sleep(120)\n";

  private final List<JobStatus> heard = new CopyOnWriteArrayList<>();

  private LocalCluster cluster() {
    return LocalCluster.create().stateDir(state).volumesDir(volumes);
  }

  private TrainingJob submit(String name, String script) {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/main.py"));
    return cluster().submit(Manifests.pyTorchJob(name, 1, List.of("python", "/app/main.py"),
        "Never", Map.of()), context, SubmitOptions.DEFAULT, ProgressListener.NONE);
  }

  private List<JobPhase> heardPhases() {
    return heard.stream().map(JobStatus::phase).toList();
  }

  @Test
  void aWaitForRunningReturnsWhileTheJobGoesOnHearingEachPhaseOnce() {
    TrainingJob job = submit("starts", SLEEPS);

    JobStatus running = job.waitFor(Set.of(JobPhase.RUNNING), Duration.ofSeconds(60),
        heard::add);

    assertThat(running.phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(running.pods()).as("the status it returns has the job's pods").hasSize(2);
    assertThat(heardPhases()).endsWith(JobPhase.RUNNING).doesNotHaveDuplicates();
    assertThat(job.status().phase()).as("the job goes on").isEqualTo(JobPhase.RUNNING);
  }

  @Test
  void aFailureAskedForIsTheAnswerAndOneNotAskedForThrowsItsReport() {
    TrainingJob job = submit("fails", "import sys\nprint('bad data', flush=True)\nsys.exit(3)\n");

    JobStatus end = job.waitFor(Set.of(JobPhase.SUCCEEDED, JobPhase.FAILED),
        Duration.ofSeconds(60), heard::add);
    assertThat(end.phase()).isEqualTo(JobPhase.FAILED);
    assertThat(heardPhases()).endsWith(JobPhase.FAILED).doesNotHaveDuplicates();

    JobFailedException failed = catchThrowableOfType(() -> job.waitFor(
        Set.of(JobPhase.RUNNING), Duration.ofSeconds(30)), JobFailedException.class);
    assertThat(failed).as("the same report as waitForCompletion's").isNotNull();
    assertThat(failed.status().phase()).isEqualTo(JobPhase.FAILED);
    assertThat(failed.lastLines()).contains("bad data");
  }

  @Test
  void aSuccessEndsTheWaitEvenWhenThePhasesDoNotNameIt() {
    TrainingJob job = submit("quick", "print('done', flush=True)\n");

    // Never restarted (restartPolicy Never): only the success can end this wait.
    JobStatus end = job.waitFor(Set.of(JobPhase.RESTARTING), Duration.ofSeconds(60), heard::add);

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(heardPhases()).endsWith(JobPhase.SUCCEEDED);
  }

  @Test
  void aTimeoutLeavesTheJobRunningEvenOnAClusterThatStopsJobsOnTimeout() {
    TrainingJob started = submit("long", SLEEPS);
    started.waitFor(Set.of(JobPhase.RUNNING), Duration.ofSeconds(60));
    @SuppressWarnings("deprecation") // killOnTimeout() is for waitForCompletion only
    TrainingJob job = cluster().killOnTimeout().attach("default", "long").orElseThrow();

    JobTimeoutException timeout = catchThrowableOfType(() -> job.waitFor(
        Set.of(JobPhase.SUCCEEDED), Duration.ofMillis(500), heard::add),
        JobTimeoutException.class);

    assertThat(timeout).hasMessageContaining("still Running after");
    assertThat(timeout.lastStatus().phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(heardPhases()).containsExactly(JobPhase.RUNNING);
    assertThat(job.status().phase()).as("the job goes on").isEqualTo(JobPhase.RUNNING);
  }

  @Test
  void aCallbackThatThrowsEndsTheWaitAndTheJobGoesOn() {
    TrainingJob job = submit("heard", SLEEPS);
    job.waitFor(Set.of(JobPhase.RUNNING), Duration.ofSeconds(60));

    IllegalStateException thrown = catchThrowableOfType(() -> job.waitFor(
        Set.of(JobPhase.SUCCEEDED), Duration.ofSeconds(60), s -> {
          throw new IllegalStateException("seen " + s.phase());
        }), IllegalStateException.class);

    assertThat(thrown).hasMessage("seen Running");
    assertThat(job.status().phase()).isEqualTo(JobPhase.RUNNING);
  }

  @Test
  void theClientWaitsByNameAndRefusesAnEmptySetBeforeReadingTheJob() {
    TrainingClient client = TrainingClient.connect(cluster());
    InvalidInputException empty = catchThrowableOfType(() -> client.waitFor("nothing-yet",
        Set.of(), Duration.ofSeconds(1), heard::add), InvalidInputException.class);
    assertThat(empty.field()).as("refused before it looks for a job of that name")
        .isEqualTo("phases");

    submit("named", SLEEPS);
    JobStatus running = client.waitFor("named", Set.of(JobPhase.RUNNING), Duration.ofSeconds(60),
        heard::add);
    assertThat(running.phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(running.name()).isEqualTo("named");
  }
}

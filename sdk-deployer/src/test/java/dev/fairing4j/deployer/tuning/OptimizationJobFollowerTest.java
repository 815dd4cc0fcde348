package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.job.internal.CustomObjects;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What the follower says of an OptimizationJob no controller has taken up, one the Trainer could
 * not start, and one it completed without any trial reporting the metric. A real API server sets
 * {@code creationTimestamp} itself and cannot be made to hold one minutes old on demand, so these
 * read from objects held in memory (a stand-in, said so here); {@code OptimizationJobRunIT}
 * follows one on a real server.
 */
class OptimizationJobFollowerTest {
  private final Map<String, Map<String, Object>> held = new LinkedHashMap<>();

  private final CustomObjects memory = new CustomObjects() {
    @Override
    public Map<String, Object> create(Map<String, Object> object) {
      throw new UnsupportedOperationException("the follower creates nothing");
    }

    @Override
    public void requireServed(String apiVersion, String kind, String namespace) {}

    @Override
    public boolean serves(String apiVersion, String kind, String namespace) {
      return true;
    }

    @Override
    public Optional<Map<String, Object>> get(String apiVersion, String kind, String namespace,
        String name) {
      return Optional.ofNullable(held.get(kind + "/" + name));
    }

    @Override
    public List<Map<String, Object>> list(String apiVersion, String kind, String namespace,
        String labelSelector) {
      return held.entrySet().stream().filter(e -> e.getKey().startsWith(kind + "/"))
          .map(Map.Entry::getValue).toList();
    }

    @Override
    public boolean delete(String apiVersion, String kind, String namespace, String name) {
      return held.remove(kind + "/" + name) != null;
    }
  };

  private OptimizationJobFollower follower() {
    return new OptimizationJobFollower("mnist-tune", "team", Objective.maximize("accuracy"),
        Set.of("lr"), memory, name -> Optional.empty(), List.of());
  }

  private void optimizationJob(Instant created, List<Map<String, Object>> conditions) {
    Map<String, Object> job = new LinkedHashMap<>();
    job.put("kind", "OptimizationJob");
    job.put("metadata", Map.of("name", "mnist-tune", "namespace", "team", "uid", "u-1",
        "creationTimestamp", created.truncatedTo(ChronoUnit.SECONDS).toString()));
    job.put("spec", Map.of("numTrials", 4));
    job.put("status", Map.of("conditions", new ArrayList<>(conditions)));
    held.put("OptimizationJob/mnist-tune", job);
  }

  private ExperimentResults read() {
    OptimizationJobFollower follower = follower();
    return follower.read(follower.results());
  }

  @Test
  void aJobNoControllerTookUpForAMinuteSaysToCheckTheTrainersController() {
    optimizationJob(Instant.now().minusSeconds(300), List.of());
    ExperimentResults results = read();
    assertThat(results.phase()).isEqualTo(ExperimentPhase.RUNNING);
    // The creation time carries whole seconds only, so the age read back is 300 or 301 s.
    assertThat(results.reason()).matches(Pattern.quote("no Trainer controller has taken it up:"
        + " it has no status ") + "30[01]" + Pattern.quote(" s after it was created; check that"
            + " Trainer's controller runs and handles OptimizationJobs"
            + " ('kubectl get pods -A | grep -i trainer')"));
  }

  @Test
  void aNewJobWithoutConditionsIsOnlyWaitingForItsTrials() {
    optimizationJob(Instant.now(), List.of());
    assertThat(read().reason()).isEqualTo("0 of 4 trials ended, 0 running (Trainer)");
  }

  @Test
  void aJobTheTrainerCouldNotStartRunsOnWithTheTrainersReason() {
    optimizationJob(Instant.now().minusSeconds(300), List.of(Map.of("type", "Created",
        "status", "False", "reason", "TrainJobsCreationFailed", "message",
        "admission webhook denied the request")));
    ExperimentResults results = read();
    assertThat(results.phase()).as("the Trainer retries").isEqualTo(ExperimentPhase.RUNNING);
    assertThat(results.reason()).isEqualTo("not created yet: TrainJobsCreationFailed:"
        + " admission webhook denied the request");
  }

  @Test
  void aDeletedJobEndsTheExperimentFailed() {
    ExperimentResults results = read();
    assertThat(results.phase()).isEqualTo(ExperimentPhase.FAILED);
    assertThat(results.reason()).isEqualTo("the OptimizationJob was deleted");
  }

  @Test
  void aJobTheTrainerCompletedWithoutOneTrialReportingTheMetricFails() {
    optimizationJob(Instant.now(), List.of(Map.of("type", "Complete", "status", "True",
        "reason", "MaxTrialsReached", "message", "4 trials ended")));
    Map<String, Object> trainJob = new LinkedHashMap<>();
    trainJob.put("metadata", Map.of("name", "mnist-tune-trial-a1", "creationTimestamp",
        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()));
    trainJob.put("spec", Map.of("trainer", Map.of("env", List.of(Map.of("name",
        "KUBEFLOW_TRAINER_OPT_LR", "value", "0.01")))));
    trainJob.put("status", Map.of("conditions", List.of(Map.of("type", "Complete", "status",
        "True", "reason", "JobsCompleted", "message", "done"))));
    held.put("TrainJob/mnist-tune-trial-a1", trainJob);

    ExperimentResults results = read();
    assertThat(results.trials()).singleElement().satisfies(trial -> {
      assertThat(trial.status()).isEqualTo(TrialStatus.METRICS_UNAVAILABLE);
      assertThat(trial.parameters()).containsExactly(Map.entry("lr", "0.01"));
    });
    assertThat(results.phase()).isEqualTo(ExperimentPhase.FAILED);
    assertThat(results.reason()).isEqualTo("no trial reported accuracy to the Trainer (the"
        + " script sends it to KUBEFLOW_TRAINER_SERVER_URL; see each trial's message); the"
        + " Trainer said MaxTrialsReached: 4 trials ended");
  }
}

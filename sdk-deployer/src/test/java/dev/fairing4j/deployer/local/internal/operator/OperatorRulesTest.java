package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.ManifestReader;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.RestartPolicy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.deployer.local.Manifests;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every rule the README promises for the local operator, decided with no process or clock:
 * restart policies, kubelet's back-off, the backoff limit, a plain Job's retries, the clean pod
 * policy and deadlines. (Success policies with and without a Master: {@link JobRulesTest}.)
 */
class OperatorRulesTest {
  private static final List<String> CMD = List.of("python", "t.py");

  @ParameterizedTest(name = "{0}, exit {1}: {2}")
  @CsvSource({
      "Never, 0, Completed", "Never, 1, Failed", "Never, 137, Failed",
      "OnFailure, 0, Completed", "OnFailure, 1, Restart in place", "OnFailure, 137,"
          + " Restart in place",
      "Always, 0, Restart in place", "Always, 2, Restart in place",
      "ExitCode, 0, Completed", "ExitCode, 1, Failed", "ExitCode, 127, Failed",
      "ExitCode, 128, Restart with a new pod", "ExitCode, 137, Restart with a new pod"})
  void eachRestartPolicyDecidesByTheExitCodeAsTheOperatorDoes(String policy, int code,
      String expected) {
    JobPlan plan = pyTorch(policy, Map.of());
    ExitRules.Decision decision = ExitRules.onExit(plan, RestartPolicy.parse("restartPolicy",
        policy), code, 0, 0);
    assertThat(describe(decision)).isEqualTo(expected);
  }

  @Test
  void kubeletsBackOffDoublesFrom200MillisecondsAndStopsAt10Seconds() {
    assertThat(List.of(1, 2, 3, 6, 7, 8, 50)).map(ExitRules::backoff).containsExactly(
        Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(800),
        Duration.ofMillis(6400), Duration.ofSeconds(10), Duration.ofSeconds(10),
        Duration.ofSeconds(10));
    ExitRules.Decision third = ExitRules.onExit(pyTorch("OnFailure", Map.of()),
        RestartPolicy.ON_FAILURE, 1, 2, 2);
    assertThat(third).isEqualTo(new ExitRules.Restart(Duration.ofMillis(800), false));
  }

  @Test
  void theBackoffLimitCountsEveryReplicasRestartsAndRefusingOneFailsTheJob() {
    JobPlan plan = pyTorch("OnFailure", Map.of("backoffLimit", 2));
    assertThat(ExitRules.onExit(plan, RestartPolicy.ON_FAILURE, 1, 1, 0))
        .isInstanceOf(ExitRules.Restart.class);
    assertThat(ExitRules.onExit(plan, RestartPolicy.ON_FAILURE, 1, 2, 0))
        .isEqualTo(new ExitRules.Failed(Optional.of(
            "PyTorchJob p has failed because it has reached the specified backoff limit")));
    assertThat(ExitRules.onExit(plan, RestartPolicy.NEVER, 1, 2, 0))
        .as("a replica that never wanted a restart fails itself, not by the limit")
        .isEqualTo(new ExitRules.Failed(Optional.empty()));
  }

  @Test
  void aPlainJobsPodsAreRetriedOnAnyFailureWhateverTheirRestartPolicy() {
    // The fixture's Job has backoffLimit 0: its Never pod wants the retry, which the limit
    // refuses, so the Job fails by its limit (a pod of a PyTorchJob under Never fails alone).
    JobPlan plan = ManifestReader.read(Manifests.indexedJob("b", 2, CMD));
    assertThat(ExitRules.onExit(plan, RestartPolicy.NEVER, 3, 0, 0))
        .isEqualTo(new ExitRules.Failed(Optional.of(
            "Job b has failed because it has reached the specified backoff limit")));
    assertThat(ExitRules.onExit(plan, RestartPolicy.NEVER, 0, 0, 0))
        .isInstanceOf(ExitRules.Completed.class);
  }

  @ParameterizedTest(name = "cleanPodPolicy {0}")
  @CsvSource({"None, false, false", "Running, true, false", "All, true, true"})
  void theJobsOwnEndLeavesThePodsToTheCleanPodPolicy(String policy, boolean stops,
      boolean deletesFinished) {
    JobPlan plan = pyTorch("Never", Map.of("cleanPodPolicy", policy));
    EndRules.Ending ending = EndRules.onEnd(plan, true, "done", false);
    assertThat(ending.stopRunning()).isEqualTo(stops);
    assertThat(ending.deleteFinished()).isEqualTo(deletesFinished);
    assertThat(ending.why()).isEqualTo("deleted by cleanPodPolicy " + policy
        + " when the job succeeded");
  }

  @Test
  void aDeadlineOrTheBackoffLimitStopsEveryPodWhateverTheCleanPodPolicy() {
    JobPlan plan = pyTorch("Never", Map.of("cleanPodPolicy", "None",
        "activeDeadlineSeconds", 5));
    String message = ExitRules.deadlineMessage(plan);
    EndRules.Ending ending = EndRules.onEnd(plan, false, message, true);

    assertThat(message).isEqualTo(
        "PyTorchJob p has failed because it was active longer than specified deadline");
    assertThat(ending).isEqualTo(new EndRules.Ending(true, false, "stopped: " + message));
    assertThat(plan.activeDeadlineSeconds()).contains(5L);
  }

  @Test
  void aPlainJobsControllerStopsItsRunningPodsWhenTheJobEnds() {
    JobPlan plan = ManifestReader.read(Manifests.indexedJob("b", 2, CMD));
    EndRules.Ending ending = EndRules.onEnd(plan, false, "x", false);
    assertThat(ending.stopRunning()).isTrue();
    assertThat(ending.why()).isEqualTo("deleted by the Job controller when the Job failed");
    assertThat(JobRules.evaluate(plan, List.of())).as("no pod yet: not over")
        .map(JobRules.Outcome::phase).isNotEqualTo(Optional.of(JobPhase.SUCCEEDED));
  }

  private static JobPlan pyTorch(String restartPolicy, Map<String, Object> runPolicy) {
    return ManifestReader.read(Manifests.pyTorchJob("p", 1, CMD, restartPolicy, runPolicy));
  }

  private static String describe(ExitRules.Decision decision) {
    if (decision instanceof ExitRules.Restart restart) {
      return restart.newPod() ? "Restart with a new pod" : "Restart in place";
    }
    return decision.getClass().getSimpleName();
  }
}

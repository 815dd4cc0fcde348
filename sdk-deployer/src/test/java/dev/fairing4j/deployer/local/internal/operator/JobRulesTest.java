package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.ManifestReader;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.deployer.local.Manifests;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Who decides a job's end, by kind. */
class JobRulesTest {
  private static final List<String> CMD = List.of("python", "t.py");

  @Test
  void aPyTorchJobFollowsItsMaster() {
    JobPlan plan = ManifestReader.read(Manifests.pyTorchJob("p", 2, CMD, "Never", Map.of()));
    List<ReplicaState> states = states(plan);

    states.get(1).phase = "Succeeded";
    assertThat(JobRules.evaluate(plan, states)).isEmpty();
    states.get(0).phase = "Succeeded";
    assertThat(JobRules.evaluate(plan, states)).map(JobRules.Outcome::phase)
        .contains(JobPhase.SUCCEEDED);
  }

  @Test
  void anyReplicaFailedForGoodFailsTheJob() {
    JobPlan plan = ManifestReader.read(Manifests.pyTorchJob("p", 2, CMD, "Never", Map.of()));
    List<ReplicaState> states = states(plan);
    states.get(2).phase = "Failed";

    assertThat(JobRules.evaluate(plan, states)).hasValueSatisfying(o -> {
      assertThat(o.phase()).isEqualTo(JobPhase.FAILED);
      assertThat(o.message()).isEqualTo("PyTorchJob p is failed because 1 Worker replica(s)"
          + " failed.");
    });
  }

  @Test
  void aTfJobFollowsItsChief() {
    JobPlan plan = ManifestReader.read(Manifests.tfJob("t", 2, CMD));
    List<ReplicaState> states = states(plan);
    states.get(2).phase = "Succeeded";
    assertThat(JobRules.evaluate(plan, states)).isEmpty();
    states.get(0).phase = "Succeeded";
    assertThat(JobRules.evaluate(plan, states)).map(JobRules.Outcome::phase)
        .contains(JobPhase.SUCCEEDED);
  }

  @Test
  void aBatchJobNeedsAllCompletions() {
    JobPlan plan = ManifestReader.read(Manifests.indexedJob("b", 3, CMD));
    List<ReplicaState> states = states(plan);
    states.get(0).phase = "Succeeded";
    states.get(1).phase = "Succeeded";
    assertThat(JobRules.evaluate(plan, states)).isEmpty();
    states.get(2).phase = "Succeeded";
    assertThat(JobRules.evaluate(plan, states)).map(JobRules.Outcome::phase)
        .contains(JobPhase.SUCCEEDED);
  }

  private static List<ReplicaState> states(JobPlan plan) {
    return plan.replicas().stream()
        .map(id -> new ReplicaState(id, plan.group(id.type()).orElseThrow())).toList();
  }
}

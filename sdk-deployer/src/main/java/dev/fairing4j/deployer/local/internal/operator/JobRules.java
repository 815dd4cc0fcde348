package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.deployer.job.internal.kinds.ReplicaTopology;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.LocalKind;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * When a job has succeeded or failed, by the operator's rules (CONTRACT.md, "Status"): an
 * operator kind succeeds by its {@link TrainingKind}'s rule (a PyTorchJob follows its Master, a
 * TFJob its Chief...); a plain Job needs all its completions, and so does a
 * TrainJob's node Job, whose JobSet then completes. Any replica that
 * failed for good fails the job.
 */
final class JobRules {
  private JobRules() {}

  /**
   * A terminal outcome.
   *
   * @param phase Succeeded or Failed
   * @param message the operator-style message
   */
  record Outcome(JobPhase phase, String message) {}

  static Optional<Outcome> evaluate(JobPlan plan, Collection<ReplicaState> replicas) {
    String job = plan.kind().kind() + " " + plan.name();
    Map<String, Long> failedByType = replicas.stream()
        .filter(r -> r.phase.equals("Failed") && !r.stopRequested)
        .collect(Collectors.groupingBy(r -> r.id.type(), java.util.LinkedHashMap::new,
            Collectors.counting()));
    if (!failedByType.isEmpty()) {
      if (plan.kind() == LocalKind.TRAINJOB) {
        return Optional.of(new Outcome(JobPhase.FAILED, trainJobFailed(plan)));
      }
      if (plan.kind() == LocalKind.BATCH) {
        return Optional.of(new Outcome(JobPhase.FAILED, ExitRules.backoffLimitMessage(plan)));
      }
      Map.Entry<String, Long> first = failedByType.entrySet().iterator().next();
      return Optional.of(new Outcome(JobPhase.FAILED, job + " is failed because "
          + first.getValue() + " " + first.getKey() + " replica(s) failed."));
    }
    boolean succeeded;
    if (plan.kind() == LocalKind.TRAINJOB) {
      // The JobSet completes when its one Job has all numNodes completions.
      succeeded = allSucceeded(replicas, TrainJobs.NODE);
    } else if (plan.kind() == LocalKind.BATCH) {
      succeeded = replicas.stream().filter(r -> r.phase.equals("Succeeded")).count()
          >= plan.batch().map(JobPlan.Batch::completions).orElse(1);
    } else if (plan.kind() == LocalKind.DEPLOYMENT) {
      // A Deployment serves until it is deleted: its pods restart Always and never complete.
      succeeded = false;
    } else {
      succeeded = operatorRule(plan, replicas);
    }
    String done = plan.kind() == LocalKind.TRAINJOB ? "jobset completed successfully"
        : job + " is successfully completed.";
    return succeeded
        ? Optional.of(new Outcome(JobPhase.SUCCEEDED, done))
        : Optional.empty();
  }

  /** JobSet's FailedJobs message, which the Trainer copies into the TrainJob's condition. */
  static String trainJobFailed(JobPlan plan) {
    return "jobset failed due to one or more job failures (first failed job: "
        + TrainJobs.jobName(plan.name(), TrainJobs.NODE) + ")";
  }

  /** The kind's own rule, asked with each replica's phase. */
  private static boolean operatorRule(JobPlan plan, Collection<ReplicaState> replicas) {
    TrainingKind kind = plan.kind().operatorKind().orElseThrow();
    Set<ReplicaTopology.Replica> done = replicas.stream()
        .filter(r -> r.phase.equals("Succeeded"))
        .map(r -> new ReplicaTopology.Replica(r.id.type(), r.id.index()))
        .collect(Collectors.toSet());
    List<ReplicaTopology.Group> groups = plan.groups().stream()
        .map(g -> new ReplicaTopology.Group(g.type(), g.replicas(), 0)).toList();
    return kind.succeeded(plan.spec(), new ReplicaTopology(plan.name(), plan.namespace(),
        groups, ReplicaTopology.Network.cluster()), done::contains);
  }

  private static boolean allSucceeded(Collection<ReplicaState> replicas, String type) {
    List<ReplicaState> ofType = replicas.stream().filter(r -> r.id.type().equals(type)).toList();
    return !ofType.isEmpty() && ofType.stream().allMatch(r -> r.phase.equals("Succeeded"));
  }
}

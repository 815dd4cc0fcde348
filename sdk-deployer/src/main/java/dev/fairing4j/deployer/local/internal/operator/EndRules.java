package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.LocalKind;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;

/**
 * What stops when a job ends (CONTRACT.md, "cleanPodPolicy"), decided with no process in sight.
 * A deadline, the backoff limit, a stop or a supervisor failure make the operator delete every
 * pod; an end by the job's own success or failure rules leaves the pods to the clean-pod
 * policy: None stops nothing (replicas still running may finish), Running stops the running
 * ones, All stops them and deletes the finished pods too. A plain Job's controller stops its
 * running pods when the Job ends.
 */
final class EndRules {
  private EndRules() {}

  /**
   * What ending does to the replicas.
   *
   * @param stopRunning stop the replicas still running
   * @param deleteFinished delete the pods of replicas that already exited
   * @param why what the stopped replicas' status says
   */
  record Ending(boolean stopRunning, boolean deleteFinished, String why) {}

  /**
   * The ending of {@code plan} as {@code succeeded} or failed with {@code message};
   * {@code everything}: a deadline, the backoff limit, a stop or a supervisor failure ended it.
   */
  static Ending onEnd(JobPlan plan, boolean succeeded, String message, boolean everything) {
    CleanPodPolicy policy = plan.cleanPodPolicy();
    String ended = succeeded ? "succeeded" : "failed";
    String why = everything ? "stopped: " + message
        : plan.kind() == LocalKind.BATCH ? "deleted by the Job controller when the Job " + ended
        : "deleted by cleanPodPolicy " + policy.value() + " when the job " + ended;
    return new Ending(everything || policy != CleanPodPolicy.NONE,
        !everything && policy == CleanPodPolicy.ALL, why);
  }
}

package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.LocalKind;
import dev.fairing4j.deployer.local.internal.plan.RestartPolicy;
import java.time.Duration;
import java.util.Optional;

/**
 * What happens to a replica whose container exited while its job runs, decided as the operator
 * and kubelet decide it (CONTRACT.md, "Restart"), with no process or clock in sight: the
 * {@link JobSupervisor} carries the decision out.
 *
 * <ul>
 *   <li>Exit 0 completes the replica, except under {@code Always}, which restarts it.</li>
 *   <li>{@code OnFailure} and {@code Always} restart the container in place after kubelet's
 *       back-off, shortened locally: 0.2 s doubling per restart, at most 10 s.</li>
 *   <li>{@code ExitCode} recreates the pod at once for exit codes of 128 and above (signals);
 *       1..127 fail the replica for good. {@code Never} never restarts.</li>
 *   <li>A plain Job's pods, and a TrainJob's node Job's, are retried on any failure, whatever
 *       their restart policy (the Job controller makes a new pod).</li>
 *   <li>Every restart counts against the job's {@code backoffLimit} (all replicas together); a
 *       replica that would restart past it fails the job, which then stops every pod.</li>
 * </ul>
 */
final class ExitRules {
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

  private ExitRules() {}

  /** What to do with a replica that exited. */
  sealed interface Decision permits Completed, Restart, Failed {}

  /** The replica succeeded. */
  record Completed() implements Decision {}

  /**
   * Start the replica again after {@code delay}.
   *
   * @param newPod the operator recreates the pod (the job shows Restarting); otherwise kubelet
   *     restarts the container in place (CrashLoopBackOff)
   */
  record Restart(Duration delay, boolean newPod) implements Decision {}

  /**
   * The replica failed for good.
   *
   * @param jobFailure present when it wanted a restart the backoff limit refused: the job
   *     fails with this message and every pod stops
   */
  record Failed(Optional<String> jobFailure) implements Decision {}

  /**
   * The decision for a replica of {@code plan} under {@code policy} that exited with
   * {@code code}, the job having restarted replicas {@code jobRestarts} times so far and this
   * replica {@code replicaRestarts} times.
   */
  static Decision onExit(JobPlan plan, RestartPolicy policy, int code, int jobRestarts,
      int replicaRestarts) {
    if (code == 0 && policy != RestartPolicy.ALWAYS) {
      return new Completed();
    }
    boolean jobPods = plan.kind() == LocalKind.BATCH || plan.kind() == LocalKind.TRAINJOB;
    boolean wantsRetry = jobPods ? code != 0 : policy.retries(code);
    boolean allowed = plan.backoffLimit().map(limit -> jobRestarts < limit).orElse(true);
    if (wantsRetry && allowed) {
      return policy.recreatesPod() ? new Restart(Duration.ZERO, true)
          : new Restart(backoff(replicaRestarts + 1), false);
    }
    return new Failed(wantsRetry ? Optional.of(backoffLimitMessage(plan)) : Optional.empty());
  }

  /** Kubelet's back-off before the {@code restart}-th restart of a container, shortened. */
  static Duration backoff(int restart) {
    long millis = FIRST_BACKOFF.toMillis() << Math.min(10, Math.max(0, restart - 1));
    return Duration.ofMillis(Math.min(MAX_BACKOFF.toMillis(), millis));
  }

  /** The operator's message for a job failed by its backoff limit. */
  static String backoffLimitMessage(JobPlan plan) {
    return plan.kind() == LocalKind.TRAINJOB ? JobRules.trainJobFailed(plan)
        : plan.kind().kind() + " " + plan.name()
            + " has failed because it has reached the specified backoff limit";
  }

  /** The operator's message for a job failed by its {@code activeDeadlineSeconds}. */
  static String deadlineMessage(JobPlan plan) {
    return plan.kind() == LocalKind.TRAINJOB ? "TrainJob exceeded its active deadline"
        : plan.kind().kind() + " " + plan.name()
            + " has failed because it was active longer than specified deadline";
  }
}

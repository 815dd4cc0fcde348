package dev.fairing4j.deployer.local.internal;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.deployer.internal.SubmitOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The steps a submission to this machine takes whether its replicas are sandboxed processes
 * ({@link LocalSubmitter}) or podman containers ({@link PodmanSubmitter}): written once, so the
 * two clusters keep the same rules for a taken name, the same job directory and the same notes.
 */
final class SubmitSteps {
  private SubmitSteps() {}

  /**
   * Makes {@code jobDir} the job's fresh directory: fails when the job exists, unless
   * {@code options} replace it, then deletes it first.
   */
  static void createJobDir(StateStore store, Path jobDir, JobPlan plan, SubmitOptions options,
      String cluster, Path stateDir) {
    LocalSubmitter.clearExisting(store, jobDir, plan, options);
    try {
      Files.createDirectories(jobDir);
    } catch (IOException e) {
      throw FairingException.of("submit job to the " + cluster + " cluster", jobDir.toString(),
          e.getMessage(), "check the permissions of " + stateDir, e);
    }
  }

  /** Tells the user which of a pod's containers run here: only the training container does. */
  static void noteSideContainers(JobPlan plan, String cluster, ProgressListener listener) {
    for (JobPlan.Group group : plan.groups()) {
      if (!group.pod().otherContainers().isEmpty()) {
        listener.onEvent(new ProgressEvent.Note(cluster + " cluster: " + group.type()
            + " runs container '" + group.pod().container().name() + "' only; "
            + group.pod().otherContainers() + " are not run here"));
      }
    }
  }

  /** Shields the submission from a listener that throws; none given, reports nowhere. */
  static ProgressListener guard(ProgressListener progress) {
    return GuardedListener.guard(progress == null ? ProgressListener.NONE : progress);
  }

  /** The GPUs this machine offers a job: counted only when a replica asks for one. */
  static int gpus(JobPlan plan) {
    boolean wantsGpus = plan.groups().stream().anyMatch(g -> g.pod().container().gpus() > 0);
    return wantsGpus ? GpuProbe.count() : 0;
  }

  /** Stops what a failed submit started, before its files go. */
  static void stopLive(Path jobDir) {
    LiveJobs.get(jobDir).ifPresent(JobSupervisor::delete);
    LiveJobs.remove(jobDir);
  }
}

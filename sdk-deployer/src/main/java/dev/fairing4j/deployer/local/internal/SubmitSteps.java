package dev.fairing4j.deployer.local.internal;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.operator.JobSupervisor;
import dev.fairing4j.deployer.local.internal.operator.LiveJobs;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.runtime.GpuProbe;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import dev.fairing4j.deployer.local.internal.state.FinishedJobs;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.local.internal.state.StatusMapper;
import dev.fairing4j.deployer.local.internal.supervisor.DetachedControl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The steps a submission to this machine takes whether its replicas are sandboxed processes
 * ({@link LocalSubmitter}) or podman containers ({@link PodmanSubmitter}): written once, so the
 * two clusters keep the same rules for a taken name, the same job directory and the same notes.
 */
final class SubmitSteps {
  private SubmitSteps() {}

  /**
   * Makes {@code jobDir} the job's fresh directory: fails when the job exists, unless
   * {@code options} replace it, then deletes it first. Finished jobs past the cluster's
   * retention go first, as they would on a cluster by now.
   */
  static void createJobDir(StateStore store, Path jobDir, JobPlan plan, SubmitOptions options,
      String cluster, LocalSettings local) {
    FinishedJobs.prune(store, local.retention(), Instant.now());
    Path stateDir = local.stateDir();
    clearExisting(store, jobDir, plan, options, cluster);
    try {
      Files.createDirectories(jobDir);
    } catch (IOException e) {
      throw FairingException.of("submit job to the " + cluster + " cluster", jobDir.toString(),
          e.getMessage(), "check the permissions of " + stateDir, e);
    }
  }

  /** Fails when the job exists, unless replacing it: then deletes it, live or detached. */
  private static void clearExisting(StateStore store, Path jobDir, JobPlan plan,
      SubmitOptions options, String cluster) {
    if (!Files.exists(jobDir)) {
      return;
    }
    Optional<JobRecord> existing = store.read(jobDir);
    if (existing.isPresent() && !options.replaceExisting()) {
      String phase = StatusMapper.toStatus(existing.get(), true).phase().toString();
      throw FairingException.of("submit job to the " + cluster + " cluster",
          plan.kind().kind() + " " + plan.namespace() + "/" + plan.name(),
          "a " + cluster + " job with this name already exists (" + phase + ")",
          "add .replaceExisting() (or .uniqueName()) to the deployer, or delete it first:"
              + " Clusters." + cluster + "().attach(\"" + plan.namespace() + "\", \"" + plan.name()
              + "\").ifPresent(TrainingJob::delete)", null);
    }
    // Replacing, or a directory without a record (an interrupted submit or delete).
    Optional<JobSupervisor> live = LiveJobs.get(jobDir);
    if (live.isPresent()) {
      live.get().delete();
    } else {
      DetachedControl.delete(store, jobDir);
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

  /**
   * Refuses, before anything starts, a job whose replica asks for more GPUs than this machine
   * has: unlike a cluster, which can grow, this machine never will, so the job would only wait
   * out the caller's whole timeout as Unschedulable.
   *
   * @param available the machine's GPUs ({@link #gpus(JobPlan)})
   * @param ignore {@code ignoreGpuRequests()} was set: the replicas run on the CPU instead
   * @param cluster how the user wrote the cluster, e.g. {@code Clusters.local()}
   */
  static void requireGpus(JobPlan plan, int available, boolean ignore, String cluster) {
    if (ignore) {
      return;
    }
    for (JobPlan.Group group : plan.groups()) {
      long asked = group.pod().container().gpus();
      if (asked > available) {
        throw InvalidInputException.of("gpus", plan.kind().kind() + " " + plan.name() + ": its "
            + group.type() + " asks for " + asked + " nvidia.com/gpu and this machine has "
            + (available == 0 ? "no NVIDIA GPU" : available + " NVIDIA GPU"
                + (available == 1 ? "" : "s")) + ", so it could never be scheduled here",
            "run it on the CPU with " + cluster + ".ignoreGpuRequests() (the script then must"
                + " not require CUDA), drop Mutators.gpus(..), or run it on a cluster with GPUs");
      }
    }
  }

  /**
   * Where a serving replica's model server listens: loopback unless the cluster exposes its
   * endpoints. The variable is fairing4j's model server's; another server ignores it.
   */
  static void serverHost(JobPlan plan, LocalSettings settings,
      java.util.Map<String, String> env) {
    if (plan.kind() == dev.fairing4j.deployer.local.internal.plan.LocalKind.DEPLOYMENT) {
      env.put(LocalSettings.SERVER_HOST_ENV, settings.endpointAddress());
    }
  }

  /** Stops what a failed submit started, before its files go. */
  static void stopLive(Path jobDir) {
    LiveJobs.get(jobDir).ifPresent(JobSupervisor::delete);
    LiveJobs.remove(jobDir);
  }
}

package dev.fairing4j.deployer.kubernetes.internal.diagnosis;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobReader;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While a wait follows a job that has not started running, says as it happens why its pods wait:
 * Unschedulable with the scheduler's message (not enough GPUs, a taint, a full node), an image
 * that does not pull. A cluster can gain nodes, so the wait goes on; without this the reason
 * showed only in the timeout's message, after the whole timeout. The wait itself reads no pods
 * (one watch suffices), so this reads them only for a job still not running after {@code first},
 * then every {@code every}, and reports each pod's reason once per change. Owned by one wait:
 * {@link #close()} stops its thread.
 */
public final class StuckPods implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StuckPods.class);

  private final ScheduledExecutorService timer;
  private final Map<String, String> reported = new HashMap<>();

  private StuckPods(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /**
   * Starts watching for stuck pods of {@code job}; nothing when {@code progress} listens to
   * nothing (no request is spent on a report nobody reads).
   *
   * @param phase the job's phase as the wait last saw it
   */
  public static StuckPods start(JobReader reader, String job, Supplier<Optional<JobPhase>> phase,
      ProgressListener progress, Duration first, Duration every) {
    if (GuardedListener.isSilent(progress)) {
      return new StuckPods(null);
    }
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread thread = new Thread(task, "fairing4j-stuck-pods-" + job);
      thread.setDaemon(true);
      return thread;
    });
    StuckPods stuck = new StuckPods(timer);
    timer.scheduleWithFixedDelay(() -> stuck.check(reader, job, phase, progress),
        first.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    return stuck;
  }

  private void check(JobReader reader, String job, Supplier<Optional<JobPhase>> phase,
      ProgressListener progress) {
    Optional<JobPhase> now = phase.get();
    if (now.isPresent() && now.get() != JobPhase.CREATED && now.get() != JobPhase.PENDING) {
      return;
    }
    try {
      for (PodInfo pod : reader.pods(reader.requireObject())) {
        Optional<String> why = waiting(pod);
        if (why.isPresent() && !why.get().equals(reported.get(pod.name()))) {
          reported.put(pod.name(), why.get());
          progress.onEvent(new ProgressEvent.Note(job + ": " + pod.name() + " waits: "
              + why.get() + " (the wait goes on, since a cluster can gain nodes;"
              + " job.status() shows the events)"));
        }
      }
    } catch (RuntimeException e) {
      // a report only: the wait itself deals with an unreadable job
      LOG.debug("cannot read the pods of {}: {}", job, e.toString());
    }
  }

  /** Why a pod that has not started waits, when its status says. */
  private static Optional<String> waiting(PodInfo pod) {
    if (!pod.phase().equals("Pending")) {
      return Optional.empty();
    }
    return pod.reason().map(reason -> reason + pod.message().map(m -> ": " + m).orElse(""));
  }

  /** Stops the checks. */
  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}

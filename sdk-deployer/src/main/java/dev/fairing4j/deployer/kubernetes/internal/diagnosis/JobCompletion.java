package dev.fairing4j.deployer.kubernetes.internal.diagnosis;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.diagnosis.FailureReport;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobReader;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobWatchHub;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ListWatch;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows one job until it ends: on its own {@link ListWatch} (a field selector on the job's
 * name), or on the {@link JobWatchHub shared watch} of every managed job of its kind. Every list
 * is itself checked for a terminal condition, so a condition that arrived while no watch was open
 * is never missed.
 *
 * <p>When the API server refuses to watch (400, 403, 405: a proxy, an RBAC role without the
 * {@code watch} verb, a test double) the wait falls back to polling the job every
 * {@link Timings#poll()}.
 */
public final class JobCompletion {
  private static final Logger LOG = LoggerFactory.getLogger(JobCompletion.class);

  private final KubeRest rest;
  private final JobRef job;
  private final JobReader reader;
  private final Timings timings;
  private final ProgressListener progress;
  private final Set<JobPhase> until;
  private final Consumer<JobStatus> onChange;
  private volatile JobPhase previous;
  private Map<String, Object> last = Map.of();
  /** The status the wait ends with: a phase waited for, or the success. */
  private JobStatus result;

  /** Follows {@code job} through {@code rest}, reporting phase changes to {@code progress}. */
  public JobCompletion(KubeRest rest, JobRef job, Timings timings, ProgressListener progress) {
    this(rest, job, timings, progress, EnumSet.of(JobPhase.SUCCEEDED), status -> { });
  }

  /**
   * Follows {@code job} until it is in one of {@code until} (or succeeds), telling
   * {@code onChange} of each phase seen; a failure not in {@code until} throws its report.
   */
  public JobCompletion(KubeRest rest, JobRef job, Timings timings, ProgressListener progress,
      Set<JobPhase> until, Consumer<JobStatus> onChange) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.job = Objects.requireNonNull(job, "job");
    this.reader = new JobReader(rest, job);
    this.timings = Objects.requireNonNull(timings, "timings");
    this.progress = Objects.requireNonNull(progress, "progress");
    this.until = EnumSet.copyOf(until);
    this.onChange = Objects.requireNonNull(onChange, "onChange");
  }

  /**
   * Waits until the job succeeds (its final status) or {@code deadlineNanos} (a
   * {@link System#nanoTime()} value) passes (empty).
   *
   * @throws dev.fairing4j.core.JobFailedException when the job fails
   * @throws dev.fairing4j.deployer.kubernetes.KubernetesApiException when the job is deleted or the
   *     API server answers with an error
   */
  public Optional<JobStatus> await(long deadlineNanos) {
    ListWatch.End end = new ListWatch(rest, job.resource(), job.ns(),
        ListWatch.Selector.byName(job.name()), timings, "wait for " + job)
        .run(deadlineNanos, new ListWatch.Handler() {
          @Override
          public boolean wanted() {
            return result == null;
          }

          @Override
          public void listed(KubeRest.Listing listing) {
            // Every list is checked too, so an end that came while no watch was open counts.
            observe(listing.items().stream().findFirst().orElseGet(reader::requireObject));
          }

          @Override
          public void seen(Map<String, Object> object) {
            observe(object);
          }

          @Override
          public void deleted(Map<String, Object> object) {
            reader.requireObject(); // throws NOT_FOUND, unless it was recreated
          }

          @Override
          public boolean refused(int code) {
            LOG.debug("Watching {} refused with {}; polling instead", job, code);
            return false;
          }

          @Override
          public void failed(KubernetesApiException error) {
            throw error;
          }
        });
    return end == ListWatch.End.REFUSED ? poll(deadlineNanos) : Optional.ofNullable(result);
  }

  /**
   * Waits like {@link #await(long)}, but on the shared watch of {@code hub} instead of a watch of
   * its own: subscribes first (so nothing seen later is missed), reads the job once for its
   * current state, then follows what the hub hands on. A job without the
   * {@code app.kubernetes.io/managed-by=fairing4j} label (created by another tool) is invisible
   * to the shared watch, and a refused watch gives nothing to share: both are followed on their
   * own as {@link #await(long)} does.
   */
  public Optional<JobStatus> await(long deadlineNanos, JobWatchHub hub) {
    return await(deadlineNanos, hub, Optional.empty());
  }

  /**
   * Waits on the shared watch of {@code hub} like {@link #await(long, JobWatchHub)}, but without
   * reading the job first when {@code known} holds it (as its create returned it): that tells
   * whether the shared watch can see the job, and the hub itself then hands on the job's current
   * state (from its list, or from what its running watch saw before this subscription).
   */
  public Optional<JobStatus> await(long deadlineNanos, JobWatchHub hub,
      Optional<Map<String, Object>> known) {
    Objects.requireNonNull(hub, "hub");
    Objects.requireNonNull(known, "known");
    try (JobWatchHub.Subscription subscription = hub.subscribe(job)) {
      Map<String, Object> current = known.orElseGet(reader::requireObject);
      if (!managed(current)) {
        subscription.close();
        return await(deadlineNanos);
      }
      subscription.start();
      String seenVersion = version(current);
      if (known.isEmpty()) {
        observe(current);
      }
      // else the hub reports the job's current state at once (its list, or what its running
      // watch saw): the state at creation would only show a phase the job may have left.
      while (result == null) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return Optional.empty();
        }
        Optional<JobWatchHub.Signal> signal;
        try {
          signal = subscription.next(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw FairingException.of("wait for " + job, null, "interrupted",
              "nothing to fix: the wait was interrupted", e);
        }
        if (signal.isEmpty()) {
          continue; // the deadline check above ends the wait
        }
        JobWatchHub.Signal next = signal.get();
        if (next instanceof JobWatchHub.Signal.Seen seen) {
          String version = version(seen.object());
          // The first read and the hub race: an older state must not undo a newer one.
          if (!older(version, seenVersion)) {
            seenVersion = version;
            observe(seen.object());
          }
        } else if (next instanceof JobWatchHub.Signal.Gone) {
          Map<String, Object> again = reader.requireObject(); // NOT_FOUND unless recreated
          seenVersion = version(again);
          observe(again);
        } else if (next instanceof JobWatchHub.Signal.Refused refused) {
          LOG.debug("Shared watch refused with {}; following {} alone", refused.code(), job);
          subscription.close();
          return await(deadlineNanos);
        } else if (next instanceof JobWatchHub.Signal.Failed failed) {
          throw failed.error();
        }
      }
      return Optional.of(result);
    }
  }

  private static boolean managed(Map<String, Object> object) {
    return "fairing4j".equals(JsonTree.string(object, "metadata", "labels",
        "app.kubernetes.io/managed-by").orElse(""));
  }

  private static String version(Map<String, Object> object) {
    return JsonTree.string(object, "metadata", "resourceVersion").orElse("");
  }

  /**
   * Whether {@code version} is older than {@code than}. resourceVersions are opaque, but every
   * API server in use makes them etcd revisions; anything that does not parse counts as newer.
   */
  private static boolean older(String version, String than) {
    try {
      return Long.parseLong(version) < Long.parseLong(than);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** The phase as last seen; empty before the first read. */
  public Optional<JobPhase> phase() {
    return Optional.ofNullable(previous);
  }

  /** The status as last seen, with its pods, for a timeout message. */
  public JobStatus lastStatus() {
    Map<String, Object> object = last.isEmpty() ? reader.requireObject() : last;
    List<PodInfo> pods;
    try {
      pods = reader.pods(object);
    } catch (RuntimeException e) {
      pods = List.of();
    }
    return reader.status(object, pods);
  }

  private Optional<JobStatus> poll(long deadlineNanos) {
    while (result == null) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      Timings.sleep(min(Duration.ofNanos(left), timings.poll()), "wait for " + job);
      observe(reader.requireObject());
    }
    return Optional.of(result);
  }

  /**
   * Reports a phase change, ends the wait on a phase waited for or a success, throws on a failure
   * not waited for. Pods are read only at the end
   * (for the final status or the failure report): on the way, the job's own replica counts say
   * enough, and a wait then costs no request beyond the watch.
   */
  private void observe(Map<String, Object> object) {
    last = object;
    JobStatus seen = reader.status(object, List.of());
    JobPhase phase = seen.phase();
    if (phase == previous && !phase.isTerminal()) {
      return;
    }
    boolean ends = until.contains(phase) || phase.isTerminal();
    List<JobReader.JobPod> pods = ends ? reader.jobPods(object) : List.of();
    JobStatus status = ends
        ? reader.status(object, pods.stream().map(JobReader.JobPod::info).toList()) : seen;
    if (phase != previous) {
      progress.onEvent(new ProgressEvent.PhaseChanged(job.name(), previous, phase,
          phase.isTerminal() ? countByPhase(status.pods()) : countByState(seen)));
      LOG.debug("{} is {}", job, phase);
      previous = phase;
      onChange.accept(seen);
    }
    if (phase == JobPhase.FAILED && !until.contains(phase)) {
      throw FailureReport.explain(rest, job, object, status,
          pods.stream().map(JobReader.JobPod::object).toList());
    }
    if (ends) {
      result = status;
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Active, succeeded and failed replicas, from the job's status (no pods read). */
  private static Map<String, Integer> countByState(JobStatus status) {
    Map<String, Integer> counts = new TreeMap<>();
    status.replicaStatuses().values().forEach(r -> {
      counts.merge("active", r.active(), Integer::sum);
      counts.merge("succeeded", r.succeeded(), Integer::sum);
      counts.merge("failed", r.failed(), Integer::sum);
    });
    counts.values().removeIf(n -> n == 0);
    return counts;
  }

  private static Map<String, Integer> countByPhase(List<PodInfo> pods) {
    Map<String, Integer> counts = new TreeMap<>();
    pods.forEach(p -> counts.merge(p.phase(), 1, Integer::sum));
    return counts;
  }
}

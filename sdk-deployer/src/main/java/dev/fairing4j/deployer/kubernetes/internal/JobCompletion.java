package dev.fairing4j.deployer.kubernetes.internal;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows one job until it ends, driven by a watch: list the job (by
 * {@code fieldSelector=metadata.name=...}) for a resourceVersion, then watch from there with
 * bookmarks. A stream that ends or breaks is resumed from the last resourceVersion seen; a 410
 * Gone (as a response or as an ERROR event) means that version is too old, so the job is listed
 * again. Every list is itself checked for a terminal condition, so a condition that arrived while
 * no watch was open is never missed. A restarting or busy server (429, 503, or nobody listening)
 * met by the watch or by such a list is waited out like a dropped connection: ask again after
 * {@link Timings#poll()}, until the deadline.
 *
 * <p>When the API server refuses to watch (400, 403, 405: a proxy, an RBAC role without the
 * {@code watch} verb, a test double) the wait falls back to polling the job every
 * {@link Timings#poll()}.
 */
public final class JobCompletion {
  private static final Logger LOG = LoggerFactory.getLogger(JobCompletion.class);
  /** A real API server ends a watch after this; we ask for a bound so stale streams recycle. */
  private static final Duration SERVER_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration CALL_SLACK = Duration.ofSeconds(30);

  private final KubeRest rest;
  private final JobRef job;
  private final JobReader reader;
  private final Timings timings;
  private final ProgressListener progress;
  private JobPhase previous;
  private Map<String, Object> last = Map.of();
  private JobStatus terminal;

  /** Follows {@code job} through {@code rest}, reporting phase changes to {@code progress}. */
  public JobCompletion(KubeRest rest, JobRef job, Timings timings, ProgressListener progress) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.job = Objects.requireNonNull(job, "job");
    this.reader = new JobReader(rest, job);
    this.timings = Objects.requireNonNull(timings, "timings");
    this.progress = Objects.requireNonNull(progress, "progress");
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
    String version = relist();
    while (terminal == null) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      Duration remaining = Duration.ofNanos(left);
      boolean sawEvent = false;
      try {
        if (version == null) {
          version = relist();
          continue; // the list may have seen the end
        }
        try (WatchStream stream = rest.watch(job.resource(), job.ns(), fieldSelector(), version,
            min(remaining, SERVER_TIMEOUT), min(remaining, SERVER_TIMEOUT.plus(CALL_SLACK)))) {
          if (stream.code() == 410) {
            version = null;
            continue;
          }
          if (refused(stream.code())) {
            LOG.debug("Watching {} refused with {}; polling instead", job, stream.code());
            return poll(deadlineNanos);
          }
          if (TemporaryAnswers.temporary(stream.code())) {
            // A restarting server: ask again after the pause below, from the same version.
            LOG.debug("Watching {} answered {}; trying again", job, stream.code());
          } else if (stream.code() < 200 || stream.code() >= 300) {
            throw rest.error(Operation.onCollection("watch", job.resource(), job.ns()),
                stream.error());
          } else {
            Optional<Map<String, Object>> event;
            while (terminal == null && (event = stream.next()).isPresent()) {
              Optional<String> next = handle(event.get());
              if (next.isEmpty()) {
                version = null;
                break; // an ERROR is no progress: a server repeating it gets the pause below
              }
              sawEvent = true;
              version = next.get().isEmpty() ? version : next.get();
            }
          }
        }
      } catch (IOException e) {
        // A dropped connection or the call's bound: resume from the last version seen.
        LOG.debug("Watch of {} ended: {}", job, e.toString());
      } catch (KubernetesApiException e) {
        // A list after a 410, or a read for an event, met by a restarting server: the version
        // was not advanced, so the pause below and the next round pick up from there.
        if (!TemporaryAnswers.temporary(e)) {
          throw e;
        }
        LOG.debug("Listing {} failed for now: {}", job, e.getMessage());
      }
      if (terminal == null && !sawEvent && deadlineNanos - System.nanoTime() > 0) {
        // A stream that ends at once (a flapping proxy) must not turn into a busy loop.
        Timings.sleep(min(Duration.ofNanos(deadlineNanos - System.nanoTime()), timings.poll()),
            "wait for " + job);
      }
    }
    return Optional.of(terminal);
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
      while (terminal == null) {
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
      return Optional.of(terminal);
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

  /**
   * Handles one watch event; returns the resourceVersion to resume from (empty string when the
   * event carried none), or empty when the job must be listed again.
   */
  private Optional<String> handle(Map<String, Object> event) {
    String type = JsonTree.string(event, "type").orElse("");
    Map<String, Object> object = JsonTree.map(event, "object");
    String version = JsonTree.string(object, "metadata", "resourceVersion").orElse("");
    switch (type) {
      case "ADDED", "MODIFIED" -> observe(object);
      case "BOOKMARK" -> { }
      case "DELETED" -> reader.requireObject(); // throws NOT_FOUND, unless it was recreated
      case "ERROR" -> {
        // 410 Gone (version too old) or anything else the server could not continue from: a
        // fresh list is the only safe restart point.
        LOG.debug("Watch of {} sent an error ({}); listing again", job,
            JsonTree.integer(object, "code").orElse(0));
        return Optional.empty();
      }
      default -> LOG.debug("Ignoring watch event {} for {}", type, job);
    }
    return Optional.of(version);
  }

  /** Lists the job, observes it, and returns the list's resourceVersion. */
  private String relist() {
    KubeRest.Listing listing = rest.listing(job.resource(), job.ns(),
        Optional.of(fieldSelector()));
    Map<String, Object> object = listing.items().stream().findFirst()
        .orElseGet(reader::requireObject);
    observe(object);
    return listing.resourceVersion();
  }

  private Optional<JobStatus> poll(long deadlineNanos) {
    while (terminal == null) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      Timings.sleep(min(Duration.ofNanos(left), timings.poll()), "wait for " + job);
      observe(reader.requireObject());
    }
    return Optional.of(terminal);
  }

  /**
   * Reports a phase change, records a success, throws on failure. Pods are read only at the end
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
    List<JobReader.JobPod> pods = phase.isTerminal() ? reader.jobPods(object) : List.of();
    JobStatus status = phase.isTerminal()
        ? reader.status(object, pods.stream().map(JobReader.JobPod::info).toList()) : seen;
    if (phase != previous) {
      progress.onEvent(new ProgressEvent.PhaseChanged(job.name(), previous, phase,
          phase.isTerminal() ? countByPhase(status.pods()) : countByState(seen)));
      LOG.debug("{} is {}", job, phase);
      previous = phase;
    }
    if (phase == JobPhase.SUCCEEDED) {
      terminal = status;
    } else if (phase == JobPhase.FAILED) {
      throw FailureReport.explain(rest, job, object, status,
          pods.stream().map(JobReader.JobPod::object).toList());
    }
  }

  private String fieldSelector() {
    return "metadata.name=" + job.name();
  }

  private static boolean refused(int code) {
    return code == 400 || code == 403 || code == 405 || code == 501;
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

package dev.fairing4j.deployer.kubernetes.internal.logs;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.diagnosis.LogMemory;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobReader;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.jobs.PodDiagnosis;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.LogConnection;
import dev.fairing4j.deployer.kubernetes.internal.transport.Operation;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a job's logs as streams: a daemon thread finds the job's pods (new ones too, every
 * {@link Timings#poll()}) and starts one daemon thread per container to follow, which holds a
 * {@code follow=true&timestamps=true} request open and hands each line on as it arrives.
 *
 * <p>A stream that breaks is reopened with {@code sinceTime} = the last delivered line's time
 * and the overlap dropped by {@link LineDeduper}, so nothing is lost or repeated. When a
 * container restarts (its containerID changes), the log of the instance that ended is read once
 * with {@code previous=true} for whatever the broken stream missed, then the new instance is
 * followed; an instance that had already ended when the container was first seen (a fast
 * crash, restarted before the first look) is read the same way first. Init containers are
 * followed while a pod is still initialising once they are stuck (failed, or running for
 * {@link #STUCK_INIT}), so a stuck init step shows its output and a healthy one adds no noise.
 * A pod deleted while followed ends its stream with a note line. The whole stream ends when
 * the job has ended and every follower has read its container to the end.
 */
public final class StreamingLogStream implements LogStream {
  private static final Logger LOG = LoggerFactory.getLogger(StreamingLogStream.class);
  /** How long an init container may run before its log is shown as the reason for a wait. */
  static final Duration STUCK_INIT = Duration.ofSeconds(10);
  /** How long after the job's end a scheduled container's first run is still waited for. */
  static final Duration LATE_START = Duration.ofSeconds(10);
  /**
   * How long after a stream opens its instance is checked against the pod's status: the lag
   * between the kubelet restarting a container and the status saying so (seconds on a loaded
   * node). Bounds the extra reads to one per poll for this long per new instance.
   */
  static final Duration STATUS_LAG = Duration.ofSeconds(30);

  private final KubeRest rest;
  private final JobRef job;
  private final LogSelection selection;
  private final Timings timings;
  private final Consumer<LogLine> consumer;
  private final CountDownLatch ended = new CountDownLatch(1);
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean jobEnded = new AtomicBoolean();
  private final AtomicBoolean jobSucceeded = new AtomicBoolean();
  private final AtomicBoolean consumerFailed = new AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicReference<String> jobUid =
      new java.util.concurrent.atomic.AtomicReference<>("");
  private final Object deliveryLock = new Object();
  private final List<Thread> threads = new ArrayList<>();
  private final Set<LogConnection> open = new HashSet<>();
  // The runtime this stream was started for closes it without the drain close() allows; held
  // here so the runtime's weak tracking keeps it exactly as long as this stream lives.
  private final AutoCloseable cut = this::cut;
  private final Owner owner = Owner.current();

  private StreamingLogStream(KubeRest rest, JobRef job, LogSelection selection, Timings timings,
      Consumer<LogLine> consumer) {
    this.rest = rest;
    this.job = job;
    this.selection = selection;
    this.timings = timings;
    this.consumer = consumer;
  }

  /** Starts following; returns at once. */
  public static StreamingLogStream start(KubeRest rest, JobRef job, LogSelection selection,
      Timings timings, Consumer<LogLine> consumer) {
    StreamingLogStream stream = new StreamingLogStream(rest, job, selection, timings, consumer);
    stream.owner.track(stream.cut);
    stream.spawn("fairing4j-logs-" + job.name(), stream::discover);
    return stream;
  }

  @Override
  public boolean awaitEnd(Duration timeout) {
    try {
      return ended.await(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return isDone();
    }
  }

  @Override
  public boolean isDone() {
    return ended.getCount() == 0;
  }

  /** E.g. {@code log stream of PyTorchJob team/mnist (following)}. */
  @Override
  public String toString() {
    return "log stream of " + job.resource().kind() + " " + job.namespace() + "/" + job.name()
        + " (" + (closed.get() ? "closed" : isDone() ? "ended" : "following") + ")";
  }

  @Override
  public void close() {
    if (!closed.get() && !isDone() && ended()) {
      // Followers of ended pods stop at the end of their logs; the discovery thread joins them.
      awaitEnd(DRAIN_ON_CLOSE);
    }
    cut();
  }

  private void cut() {
    if (closed.compareAndSet(false, true)) {
      synchronized (open) {
        open.forEach(LogConnection::close);
      }
      synchronized (threads) {
        threads.forEach(Thread::interrupt);
      }
      ended.countDown();
    }
    owner.forget(cut);
  }

  // Whether the job has ended, by what discovery saw or, just after a wait returned, by asking.
  private boolean ended() {
    if (jobEnded.get()) {
      return true;
    }
    try {
      JobReader reader = new JobReader(rest, job);
      Optional<Map<String, Object>> object = reader.object();
      return object.isEmpty() || reader.status(object.get(), List.of()).isTerminal();
    } catch (RuntimeException e) {
      return false;  // cannot tell: cut as before
    }
  }

  private void discover() {
    JobReader reader = new JobReader(rest, job);
    Set<String> followed = new HashSet<>();
    List<Thread> followers = new ArrayList<>();
    try {
      while (!closed.get()) {
        boolean over;
        try {
          // The job's state is read before its pods, so pods seen after the end are complete.
          Optional<Map<String, Object>> object = reader.object();
          object.flatMap(o -> JsonTree.string(o, "metadata", "uid")).ifPresent(jobUid::set);
          JobStatus status = object.map(o -> reader.status(o, List.of())).orElse(null);
          over = status == null || status.isTerminal();
          jobSucceeded.set(status != null && status.phase() == JobPhase.SUCCEEDED);
          for (JobReader.JobPod pod : reader.jobPods(object.orElse(Map.of()))) {
            if (!selection.matches(pod.info())) {
              continue;
            }
            for (ContainerRef container : containersToFollow(pod)) {
              if (followed.add(pod.info().name() + "/" + container.name())) {
                followers.add(spawn("fairing4j-logs-" + pod.info().name() + "-"
                    + container.name(), () -> follow(pod, container)));
              }
            }
          }
        } catch (KubernetesApiException e) {
          if (fatal(e)) {
            LOG.warn("Stopped following the logs of {}: {}", job, e.getMessage());
            over = true;
          } else {
            LOG.debug("Listing the pods of {} failed, retrying: {}", job, e.getMessage());
            over = false;
          }
        }
        if (over) {
          jobEnded.set(true);
          for (Thread follower : followers) {
            follower.join();
          }
          return;
        }
        Thread.sleep(timings.poll().toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closed
    } catch (RuntimeException e) {
      if (!closed.get()) {
        LOG.warn("Stopped following the logs of {}: {}", job, e.getMessage());
      }
    } finally {
      ended.countDown();
      owner.forget(cut);
    }
  }

  /** A container of a pod and whether it is an init container. */
  private record ContainerRef(String name, boolean init) {}

  /**
   * The training container, and while the pod is Pending the init containers that are stuck (a
   * stuck init step is often the reason a job does not start).
   */
  private List<ContainerRef> containersToFollow(JobReader.JobPod pod) {
    List<ContainerRef> containers = new ArrayList<>();
    if (selection.container().isPresent()) {
      String wanted = selection.container().get();
      boolean init = JsonTree.maps(pod.object(), "spec", "initContainers").stream()
          .anyMatch(c -> wanted.equals(c.get("name")));
      boolean main = JsonTree.maps(pod.object(), "spec", "containers").stream()
          .anyMatch(c -> wanted.equals(c.get("name")));
      return init || main ? List.of(new ContainerRef(wanted, init)) : List.of();
    }
    if ("Pending".equals(pod.info().phase())) {
      for (Map<String, Object> status : JsonTree.maps(pod.object(), "status",
          "initContainerStatuses")) {
        if (JsonTree.text(status, "containerID").isPresent() && stuck(status)) {
          containers.add(new ContainerRef(JsonTree.string(status, "name").orElse(""), true));
        }
      }
    }
    containers.add(new ContainerRef(PodDiagnosis.trainingContainer(pod.object(), job.kind()),
        false));
    return containers;
  }

  /**
   * Whether an init container holds its pod up: it failed (and is retried), or has been running
   * for {@link #STUCK_INIT}. A healthy one is not followed: on a real cluster the operator gives
   * every PyTorch Worker one that waits for the Master's name to resolve, and its nslookup output
   * is no line of the training. When a stuck one is followed its log is read from the start.
   */
  private static boolean stuck(Map<String, Object> status) {
    if (JsonTree.integer(status, "restartCount").orElse(0) > 0
        || JsonTree.integer(status, "state", "terminated", "exitCode").orElse(0) != 0
        || !JsonTree.map(status, "lastState", "terminated").isEmpty()) {
      return true;
    }
    return JsonTree.instant(status, "state", "running", "startedAt")
        .map(started -> started.plus(STUCK_INIT).isBefore(Instant.now()))
        .orElse(false);
  }

  private void follow(JobReader.JobPod pod, ContainerRef container) {
    String name = pod.info().name();
    String replica = PodDiagnosis.shortName(pod.info());
    LineDeduper seen = new LineDeduper(selection.since());
    Set<String> previousRead = new HashSet<>();
    String tracked = null;
    // Where following the tracked instance began, and the time of the first line taken as its.
    Optional<Instant> trackedFrom = Optional.empty();
    Instant trackedFirst = null;
    // Whether the first stream taken as the tracked instance's ran to its log's end: the kubelet
    // ends a followed log when the container exits, so that instance's lines all came (unless
    // that stream was its successor's from the start, which the missed-lines check sees). Null
    // until that stream ends. Later streams taken as its may be the successor's, cut or not.
    Boolean trackedComplete = null;
    Instant lateSince = null;
    try {
      while (!closed.get()) {
        // Whether this is the last read is decided before reading, so that read sees the end.
        boolean jobOver = jobEnded.get();
        Optional<Map<String, Object>> current = rest.find(ResourceRef.PODS,
            Optional.of(job.namespace()), name);
        if (current.isEmpty()) {
          note(replica, container, "(pod " + name + " was deleted; its log ends here)");
          return;
        }
        Map<String, Object> status = containerStatus(current.get(), container);
        String id = JsonTree.string(status, "containerID").orElse("");
        String ended = JsonTree.string(status, "lastState", "terminated", "containerID")
            .orElse("");
        if (tracked != null && !tracked.equals(id) && tracked.equals(ended)
            && previousRead.add(tracked)) {
          // The instance we followed restarted; its last lines may have missed our stream.
          // And the status can lag the kubelet: while it still named that instance, the log
          // may already have come from its successor, whose lines we then took for its own. If
          // the first line we took came after the instance ended, its own lines before that
          // line were never delivered: the read starts where we began following it, and those
          // lines pass as well as those after the last one delivered.
          Optional<Instant> endedAt = JsonTree.instant(status, "lastState", "terminated",
              "finishedAt");
          LineDeduper missed = trackedFirst != null && endedAt.isPresent()
              && trackedFirst.isAfter(endedAt.get()) && selection.tail().isEmpty()
              ? new LineDeduper(trackedFrom, Optional.of(trackedFirst)) : null;
          Read previous = read(name, replica, container,
              line -> missed != null && missed.admit(line) || seen.admit(line),
              new KubeRest.LogQuery(false, true, Optional.empty(),
                  missed != null ? trackedFrom : seen.resumeFrom()));
          // The read is for what the streams missed. When the first one ran to the end of the
          // instance's log and took no successor's lines for its, nothing was missed, and a
          // kubelet that already removed the log (once the pod is over) costs no line: no note
          // (seen in CI: the successor's short run came on the stream reopened while the status
          // lagged, which the check then cut, and the note said a complete log might not be).
          if (previous.gone() && (missed != null || !Boolean.TRUE.equals(trackedComplete))) {
            noteGone(replica, container, true);
          }
          runEnded(replica, status, previous);
        } else if (tracked == null && !ended.isEmpty() && !ended.equals(id)
            && selection.tail().isEmpty() && previousRead.add(ended)) {
          // It crashed and was restarted before we first looked (a script failing at once
          // restarts within our poll): its only record is the previous instance's log.
          Read previous = read(name, replica, container, seen::admit,
              new KubeRest.LogQuery(false, true, Optional.empty(), seen.resumeFrom()));
          if (previous.gone()) {
            noteGone(replica, container, true);
          }
          runEnded(replica, status, previous);
        }
        String phase = JsonTree.string(current.get(), "status", "phase").orElse("Pending");
        boolean podOver = phase.equals("Succeeded") || phase.equals("Failed");
        boolean initDone = container.init() && (!phase.equals("Pending")
            || JsonTree.integer(status, "state", "terminated", "exitCode").orElse(-1) == 0);
        boolean started = !id.isEmpty() || JsonTree.map(status, "state").containsKey("running")
            || JsonTree.map(status, "state").containsKey("terminated")
            || (status.isEmpty() && !phase.equals("Pending"));
        if (!started) {
          if (jobOver && lateSince == null) {
            lateSince = Instant.now();
          }
          if (podOver || (jobOver && !(jobSucceeded.get()
              && mayStillStart(current.get(), status, lateSince)))) {
            return; // never started
          }
          Thread.sleep(timings.poll().toMillis());
          continue;
        }
        if (!id.equals(tracked)) {
          trackedFrom = seen.resumeFrom();
          trackedFirst = null;
          trackedComplete = null;
        }
        tracked = id;
        Optional<Integer> tail = seen.resumed() ? Optional.empty() : selection.tail();
        // The status can lag the kubelet: the instance it names may already have been replaced,
        // and the stream then follows its successor, which may run for hours. Where containers
        // restart in place, the status is checked while a stream is young; if it names another
        // instance, the stream is cut and the loop reads what was missed. A stream reopened on
        // the instance already followed is checked too: when that instance's stream ended
        // because it exited, the reopened one is its successor's while the status still names
        // it (seen in CI: the first run's log was then read only after the pod ended, when the
        // kubelet had removed it).
        AtomicReference<LogConnection> streaming = new AtomicReference<>();
        AtomicBoolean cutShort = new AtomicBoolean();
        Thread verifier = restartsInPlace(current.get())
            ? verify(name, container, id, streaming, cutShort) : null;
        Read followed;
        try {
          followed = read(name, replica, container, seen::admit,
              new KubeRest.LogQuery(true, false, tail, seen.resumeFrom()), streaming::set);
        } finally {
          if (verifier != null) {
            verifier.interrupt();
          }
        }
        if (followed.gone()) {
          noteGone(replica, container, false);
        }
        if (trackedFirst == null) {
          trackedFirst = followed.firstDelivered().orElse(null);
        }
        if (trackedComplete == null) {
          trackedComplete = followed.toTheEnd() && !cutShort.get();
        }
        int delivered = followed.delivered();
        if (podOver || jobOver || initDone) {
          return;
        }
        if (delivered == 0) {
          // A stream that ends at once (a container not started, a flapping proxy) must not
          // turn into a busy loop.
          Thread.sleep(timings.poll().toMillis());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closed
    } catch (RuntimeException e) {
      if (!closed.get()) { // after close(), interrupted requests are expected
        LOG.warn("Stopped following the log of {}: {}", name, e.getMessage());
      }
    }
  }

  /** Whether the pod's containers restart in place (its restartPolicy is not Never). */
  private static boolean restartsInPlace(Map<String, Object> pod) {
    return !JsonTree.string(pod, "spec", "restartPolicy").orElse("Always").equals("Never");
  }

  /**
   * A daemon thread that, for {@link #STATUS_LAG} after the stream of instance {@code id}
   * opens, reads the pod's status each poll and closes the stream as soon as the status names
   * another instance; interrupted when the read ends or the stream is cut.
   */
  private Thread verify(String pod, ContainerRef container, String id,
      AtomicReference<LogConnection> streaming, AtomicBoolean cutShort) {
    return spawn("fairing4j-log-status " + pod, () -> {
      long until = System.nanoTime() + STATUS_LAG.toNanos();
      try {
        while (!closed.get() && System.nanoTime() < until) {
          Thread.sleep(timings.poll().toMillis());
          Optional<Map<String, Object>> now = rest.find(ResourceRef.PODS,
              Optional.of(job.namespace()), pod);
          String current = now.map(p -> JsonTree.string(containerStatus(p, container),
              "containerID").orElse("")).orElse("");
          if (!current.isEmpty() && !current.equals(id)) {
            LogConnection open = streaming.get();
            cutShort.set(true);
            if (open != null) {
              open.close();
            }
            return;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();  // the read ended
      } catch (RuntimeException e) {
        LOG.debug("Could not check the status of {} while following it: {}", pod,
            e.getMessage());
      }
    });
  }

  /**
   * The run the pod's status says ended (lastState) is over in the memory a report reads: up to
   * the last line its own log (read with {@code previous=true}, since the last line delivered)
   * showed, else up to the kubelet's whole-second end.
   */
  private void runEnded(String replica, Map<String, Object> status, Read previous) {
    if (previous.lastLine().isPresent()) {
      LogMemory.runEndedWithLine(jobUid.get(), replica, previous.lastLine().get());
      return;
    }
    JsonTree.instant(status, "lastState", "terminated", "finishedAt")
        .ifPresent(end -> LogMemory.runEnded(jobUid.get(), replica, end));
  }

  /**
   * What one log request gave.
   *
   * @param delivered the lines handed on (new ones)
   * @param lastLine the time of the last line read, delivered or not
   * @param firstDelivered the time of the first line handed on
   * @param toTheEnd whether the log was read to its end (not broken, refused or cut)
   * @param gone whether the kubelet answered that it no longer has the log
   */
  private record Read(int delivered, Optional<Instant> lastLine,
      Optional<Instant> firstDelivered, boolean toTheEnd, boolean gone) {
    static final Read NOTHING = new Read(0, Optional.empty(), Optional.empty(), false, false);
  }

  /**
   * Whether a container not yet started when the job ended will still run, so its lines are
   * waited for. A Master's success ends a PyTorchJob while a Worker's init step may still wait
   * for the Master's name: that Worker then runs its whole script after the end (seen on the
   * kit in 2 of 15 runs). Only a first run on a scheduled pod of a job that succeeded counts
   * (after a failure, a Worker's init step waits for a Master that is gone), for at most
   * {@link #LATE_START}: a crash-looping container's next run starts after the failure the
   * job reports and is no part of it, and a pod that cannot pull its image never runs.
   */
  private static boolean mayStillStart(Map<String, Object> pod, Map<String, Object> status,
      Instant lateSince) {
    String waiting = JsonTree.string(status, "state", "waiting", "reason").orElse("");
    return JsonTree.text(pod, "spec", "nodeName").isPresent()
        && JsonTree.integer(status, "restartCount").orElse(0) == 0
        && JsonTree.map(status, "lastState", "terminated").isEmpty()
        && !PodDiagnosis.BAD_WAITING.contains(waiting)
        && Instant.now().isBefore(lateSince.plus(LATE_START));
  }

  /**
   * Reads one log request to its end, delivering new lines; returns how many. A broken
   * connection, a container not started (400) or a pod just deleted (404) end the read quietly:
   * the caller looks at the pod again and decides.
   */
  private Read read(String pod, String replica, ContainerRef container,
      Predicate<TimestampedLine> admit, KubeRest.LogQuery query) {
    return read(pod, replica, container, admit, query, connection -> { });
  }

  /** As above; {@code opened} gets the connection once it is open, to close it early. */
  private Read read(String pod, String replica, ContainerRef container,
      Predicate<TimestampedLine> admit, KubeRest.LogQuery query,
      java.util.function.Consumer<LogConnection> opened) {
    int delivered = 0;
    Instant lastLine = null;
    Instant firstDelivered = null;
    LogConnection connection;
    try {
      connection = rest.openLog(job.namespace(), pod, container.name(), query);
    } catch (IOException e) {
      LOG.debug("Could not open the log of {}: {}", pod, e.toString());
      return Read.NOTHING;
    }
    synchronized (open) {
      if (closed.get()) {
        connection.close();
        return Read.NOTHING;
      }
      open.add(connection);
    }
    opened.accept(connection);
    try (connection) {
      if (!connection.ok()) {
        KubernetesApiException error = rest.error(Operation.on("get", ResourceRef.PODS,
            Optional.of(job.namespace()), pod).sub("log"), connection.error());
        if (fatal(error)) {
          throw error;
        }
        LOG.debug("No log for {} yet: {}", pod, error.getMessage());
        return Read.NOTHING;
      }
      Optional<String> raw;
      boolean first = true;
      while ((raw = connection.nextLine()).isPresent()) {
        TimestampedLine line = TimestampedLine.parseLine(raw.get());
        // Every line of a log read with timestamps carries one; the kubelet's own answer for a
        // container it removed does not, and is no line of the replica's.
        if (first && line.timestamp().isEmpty() && KubeRest.isLogGone(line.text())) {
          return new Read(delivered, Optional.empty(), Optional.ofNullable(firstDelivered), false,
              true);
        }
        first = false;
        if (line.timestamp().isPresent() && (lastLine == null
            || line.timestamp().get().isAfter(lastLine))) {
          lastLine = line.timestamp().get();
        }
        if (admit.test(line)) {
          delivered++;
          if (firstDelivered == null) {
            firstDelivered = line.timestamp().orElse(null);
          }
          deliver(new LogLine(replica, container.name(), line.text(), line.timestamp()));
        }
      }
      return new Read(delivered, Optional.ofNullable(lastLine),
          Optional.ofNullable(firstDelivered), true, false);
    } catch (IOException e) {
      LOG.debug("The log stream of {} broke: {}", pod, e.toString());
    } finally {
      synchronized (open) {
        open.remove(connection);
      }
    }
    return new Read(delivered, Optional.ofNullable(lastLine),
        Optional.ofNullable(firstDelivered), false, false);
  }

  /** Says in the stream that the kubelet no longer has a log we asked for. */
  private void noteGone(String replica, ContainerRef container, boolean previous) {
    note(replica, container, "(the kubelet no longer has this log: "
        + (previous ? "the run before the restart" : "the container") + " was removed)");
  }

  private static Map<String, Object> containerStatus(Map<String, Object> pod,
      ContainerRef container) {
    String field = container.init() ? "initContainerStatuses" : "containerStatuses";
    return JsonTree.maps(pod, "status", field).stream()
        .filter(s -> container.name().equals(JsonTree.string(s, "name").orElse("")))
        .findFirst().orElse(Map.of());
  }

  private void note(String replica, ContainerRef container, String text) {
    deliver(new LogLine(replica, container.name(), text, Optional.empty()));
  }

  private void deliver(LogLine line) {
    if (line.timestamp().isPresent()) {
      // Notes (no timestamp) are ours, not the replica's.
      LogMemory.record(jobUid.get(), line.replica(), line.timestamp().get(), line.text());
    }
    synchronized (deliveryLock) {
      if (closed.get()) {
        return;
      }
      try {
        consumer.accept(line);
      } catch (RuntimeException e) {
        if (consumerFailed.compareAndSet(false, true)) {
          LOG.warn("The log consumer threw; its further errors are ignored", e);
        }
      }
    }
  }

  private static boolean fatal(KubernetesApiException e) {
    return e.problem() == Problem.FORBIDDEN || e.problem() == Problem.UNAUTHORIZED;
  }

  private Thread spawn(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true); // never keeps a JVM, a JShell or a notebook kernel alive
    synchronized (threads) {
      threads.add(thread);
    }
    thread.start();
    return thread;
  }
}

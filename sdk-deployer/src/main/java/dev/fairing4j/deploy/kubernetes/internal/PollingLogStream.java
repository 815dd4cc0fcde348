package dev.fairing4j.deploy.kubernetes.internal;

import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.deploy.kubernetes.KubernetesApiException;
import dev.fairing4j.deploy.kubernetes.KubernetesApiException.Problem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a job's logs by polling: a daemon thread finds the job's pods (new ones too) and starts
 * one daemon thread per pod, which re-reads that pod's training container log with
 * {@code timestamps=true} from the last delivered time and hands on only new lines (see
 * {@link LogCursor}). A pod's thread ends after a last read once the pod is terminal, gone, or the
 * job has ended; the stream ends when the job has ended and every pod's thread is done.
 *
 * <p>Polling is the simple, correct first version: a later step streams with {@code follow=true}
 * and uses polling only to resume. Lines from different pods reach the consumer one at a time.
 */
public final class PollingLogStream implements LogStream {
  private static final Logger LOG = LoggerFactory.getLogger(PollingLogStream.class);

  private final KubeRest rest;
  private final JobRef job;
  private final LogSelection selection;
  private final Timings timings;
  private final Consumer<LogLine> consumer;
  private final CountDownLatch ended = new CountDownLatch(1);
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean jobEnded = new AtomicBoolean();
  private final AtomicBoolean consumerFailed = new AtomicBoolean();
  private final Object deliveryLock = new Object();
  private final List<Thread> threads = new ArrayList<>();

  private PollingLogStream(KubeRest rest, JobRef job, LogSelection selection, Timings timings,
      Consumer<LogLine> consumer) {
    this.rest = rest;
    this.job = job;
    this.selection = selection;
    this.timings = timings;
    this.consumer = consumer;
  }

  /** Starts following; returns at once. */
  public static PollingLogStream start(KubeRest rest, JobRef job, LogSelection selection,
      Timings timings, Consumer<LogLine> consumer) {
    PollingLogStream stream = new PollingLogStream(rest, job, selection, timings, consumer);
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

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      synchronized (threads) {
        threads.forEach(Thread::interrupt);
      }
      ended.countDown();
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
          over = object.isEmpty()
              || reader.status(object.get(), List.of()).isTerminal();
          for (JobReader.JobPod pod : reader.jobPods(object.orElse(Map.of()))) {
            if (selection.matches(pod.info()) && followed.add(pod.info().name())) {
              followers.add(spawn("fairing4j-logs-" + pod.info().name(), () -> follow(pod)));
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
      LOG.warn("Stopped following the logs of {}: {}", job, e.getMessage());
    } finally {
      ended.countDown();
    }
  }

  private void follow(JobReader.JobPod pod) {
    String name = pod.info().name();
    String container = PodDiagnosis.trainingContainer(pod.object(), job.kind());
    String replica = PodDiagnosis.shortName(pod.info());
    LogCursor cursor = new LogCursor(selection.since());
    boolean first = true;
    try {
      while (!closed.get()) {
        // Whether this is the last read is decided before reading, so that read sees the end.
        boolean last = jobEnded.get();
        Optional<Map<String, Object>> current = rest.find(ResourceRef.PODS,
            Optional.of(job.namespace()), name);
        if (current.isEmpty()) {
          return;
        }
        String phase = JsonTree.string(current.get(), "status", "phase").orElse("Pending");
        last |= phase.equals("Succeeded") || phase.equals("Failed");
        try {
          Optional<Integer> tail = first && !cursor.resumed() ? selection.tail()
              : Optional.empty();
          String body = rest.readLog(job.namespace(), name, container, tail, true,
              cursor.resumeFrom());
          first = false;
          for (TimestampedLine line : cursor.advance(TimestampedLine.parse(body))) {
            deliver(new LogLine(replica, container, line.text(), line.timestamp()));
          }
        } catch (KubernetesApiException e) {
          if (e.problem() == Problem.NOT_FOUND) {
            return;
          }
          if (fatal(e)) {
            LOG.warn("Stopped following the log of {}: {}", name, e.getMessage());
            return;
          }
          LOG.debug("Reading the log of {} failed, retrying: {}", name, e.getMessage());
        }
        if (last) {
          return;
        }
        Thread.sleep(timings.poll().toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closed
    } catch (RuntimeException e) {
      LOG.warn("Stopped following the log of {}: {}", name, e.getMessage());
    }
  }

  private void deliver(LogLine line) {
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

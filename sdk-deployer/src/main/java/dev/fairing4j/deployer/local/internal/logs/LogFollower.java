package dev.fairing4j.deployer.local.internal.logs;

import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the log files of some replicas on a daemon thread: first the selected tail of what is
 * there, then every new line, restarts included (a restarted replica appends to the same file),
 * until the job can produce no more output or the stream is closed.
 */
final class LogFollower implements LogStream {
  private static final Logger LOG = LoggerFactory.getLogger(LogFollower.class);
  private static final long IDLE_MILLIS = 100;

  private final CountDownLatch ended = new CountDownLatch(1);
  private final BooleanSupplier jobEnded;
  private volatile boolean closed;
  private Thread thread;
  // The runtime this follower was started for stops it without the drain close() allows; held
  // here so the runtime's weak tracking keeps it exactly as long as this follower lives.
  private final AutoCloseable cut = this::cut;
  private final Owner owner = Owner.current();

  // The job and its replicas, for toString.
  private final String description;

  private LogFollower(BooleanSupplier jobEnded, String description) {
    this.jobEnded = jobEnded;
    this.description = description;
  }

  /**
   * Follows {@code replicas}; {@code finished} says no more lines can come (the job settled),
   * {@code jobEnded} that the job has ended (its replicas may still be finishing).
   */
  static LogFollower start(Path jobDir, List<JobRecord.Replica> replicas,
      BiFunction<JobRecord.Replica, String, Optional<LogLine>> toLine, int tail,
      BooleanSupplier finished, BooleanSupplier jobEnded, Consumer<LogLine> consumer) {
    LogFollower follower = new LogFollower(jobEnded, jobDir.getFileName() + " ("
        + replicas.stream().map(JobRecord.Replica::shortName)
            .collect(java.util.stream.Collectors.joining(", ")));
    follower.thread = new Thread(() -> follower.follow(jobDir, replicas, toLine, tail, finished,
        consumer), "fairing4j-logs-" + jobDir.getFileName());
    follower.thread.setDaemon(true);
    follower.owner.track(follower.cut);
    follower.thread.start();
    return follower;
  }

  private void follow(Path jobDir, List<JobRecord.Replica> replicas,
      BiFunction<JobRecord.Replica, String, Optional<LogLine>> toLine, int tail,
      BooleanSupplier finished, Consumer<LogLine> consumer) {
    boolean[] warned = {false};
    Consumer<LogLine> safe = line -> {
      try {
        consumer.accept(line);
      } catch (RuntimeException e) {
        if (!warned[0]) {
          warned[0] = true;
          LOG.warn("log consumer threw; further errors from it are ignored", e);
        }
      }
    };
    try {
      List<LogTail> tails = new ArrayList<>();
      for (JobRecord.Replica r : replicas) {
        LogTail t = new LogTail(StateStore.logFile(jobDir, r.shortName()));
        tails.add(t);
        List<LogLine> first = new ArrayList<>();
        t.poll().forEach(raw -> toLine.apply(r, raw).ifPresent(first::add));
        List<LogLine> shown = tail < 0 || first.size() <= tail ? first
            : first.subList(first.size() - tail, first.size());
        shown.forEach(safe);
      }
      while (!closed) {
        // Read the end condition before draining, so lines written just before the end are
        // still delivered.
        boolean done = finished.getAsBoolean();
        boolean any = false;
        for (int i = 0; i < tails.size() && !closed; i++) {
          JobRecord.Replica r = replicas.get(i);
          List<String> raws = done ? tails.get(i).rest() : tails.get(i).poll();
          any |= !raws.isEmpty();
          for (String raw : raws) {
            if (closed) {
              break;
            }
            toLine.apply(r, raw).ifPresent(safe);
          }
        }
        if (done) {
          break;
        }
        if (!any) {
          Thread.sleep(IDLE_MILLIS);
        }
      }
    } catch (InterruptedException e) {
      // closed
    } finally {
      ended.countDown();
      owner.forget(cut);
    }
  }

  @Override
  public boolean awaitEnd(Duration timeout) {
    try {
      return ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ended.getCount() == 0;
    }
  }

  @Override
  public boolean isDone() {
    return closed || ended.getCount() == 0;
  }

  /** E.g. {@code log stream of mnist (master-0, worker-0; following)}. */
  @Override
  public String toString() {
    return "log stream of " + description + "; " + (closed ? "closed"
        : ended.getCount() == 0 ? "ended" : "following") + ")";
  }

  @Override
  public void close() {
    if (!closed && thread != Thread.currentThread() && jobEnded.getAsBoolean()) {
      // The follower ends by itself once the job settled, after the last line of each replica.
      awaitEnd(DRAIN_ON_CLOSE);
    }
    cut();
  }

  private void cut() {
    closed = true;
    owner.forget(cut);
    if (thread != Thread.currentThread()) {
      thread.interrupt();
      try {
        thread.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

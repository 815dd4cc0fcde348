package dev.fairing4j.deployer.kubernetes.internal.diagnosis;

import dev.fairing4j.core.internal.JvmWide;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last lines this JVM streamed of each replica of recent jobs, by job uid. When a job fails by
 * its backoff limit the v1 operator deletes its pods first, and their logs with them: a failure
 * report can then still show what a followed replica printed last. Bounded: {@link #LINES} lines
 * per replica, {@link #JOBS} jobs, the least recently written forgotten first.
 *
 * <p>Runs are told apart: under OnFailure the operator fails a job when the kubelet restarts a
 * crashing container once too often, so the run that reached the limit has ended and the next has
 * already begun (its first lines may reach us before the operator deletes the pod, and even before
 * the pod's status shows the restart, since the kubelet serves the new container's log first). The
 * report wants the ended run's lines, so the follower marks where each run ended
 * ({@link #runEnded}) by the time the kubelet says it finished, lines being timestamped, and
 * {@link #last} returns the last ended run when a later one has begun.
 */
public final class LogMemory {
  /** Lines kept per replica, as many as a failure report shows. */
  public static final int LINES = FailureReport.LAST_LINES;
  /** Jobs kept. */
  public static final int JOBS = 64;
  @JvmWide(why = "a failure report is built wherever the job is waited on, from "
      + "lines any follower streamed",
      bound = "64 jobs (least recently written forgotten), 20 lines per "
      + "replica and run")
  private static final Map<String, Map<String, Replica>> BY_JOB =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Map<String, Replica>> e) {
          return size() > JOBS;
        }
      };

  /** A line and when the replica wrote it. */
  private record Line(Instant time, String text) {}

  /** One replica's lines: those of the run being streamed, and those up to the last run's end. */
  private static final class Replica {
    final Deque<Line> ended = new ArrayDeque<>();
    final Deque<Line> current = new ArrayDeque<>();
  }

  private LogMemory() {}

  /**
   * Remembers {@code line}, written at {@code time}, as the newest of {@code replica} of the job
   * with uid {@code uid}.
   */
  public static void record(String uid, String replica, Instant time, String line) {
    if (uid.isEmpty()) {
      return;
    }
    synchronized (BY_JOB) {
      Deque<Line> lines = replica(uid, replica).current;
      lines.addLast(new Line(time, line));
      if (lines.size() > LINES) {
        lines.removeFirst();
      }
    }
  }

  /**
   * Marks that a run of {@code replica} ended at {@code finishedAt} (its container restarted):
   * lines written up to then are that run's, later ones the next run's. The kubelet gives the
   * end in whole seconds and restarts a crashed container after at least 10 s, so a line within
   * the second after the end still counts as the ended run's.
   */
  public static void runEnded(String uid, String replica, Instant finishedAt) {
    cut(uid, replica, finishedAt.plusSeconds(1));
  }

  /**
   * Marks that a run of {@code replica} ended with the line written at {@code lastLine}, as the
   * ended container's own log (read with {@code previous=true}) shows it: exact, where the
   * kubelet's whole-second end needs a grace that a container restarted within the second
   * defeats (seen on the kit: the next run's first line was taken for the ended run's).
   */
  public static void runEndedWithLine(String uid, String replica, Instant lastLine) {
    cut(uid, replica, lastLine.plusNanos(1));
  }

  /** Lines written before {@code cut} become the ended run's. */
  private static void cut(String uid, String replica, Instant cut) {
    if (uid.isEmpty()) {
      return;
    }
    synchronized (BY_JOB) {
      Replica lines = replica(uid, replica);
      if (lines.current.isEmpty() || !lines.current.peekFirst().time().isBefore(cut)) {
        return;
      }
      lines.ended.clear();
      while (!lines.current.isEmpty() && lines.current.peekFirst().time().isBefore(cut)) {
        lines.ended.addLast(lines.current.removeFirst());
      }
    }
  }

  /**
   * The last lines streamed of {@code replica} of the job {@code uid}, oldest first: those of the
   * last run that ended when a later run has begun, else those of the run streamed.
   */
  public static List<String> last(String uid, String replica) {
    synchronized (BY_JOB) {
      Map<String, Replica> job = BY_JOB.get(uid);
      Replica lines = job == null ? null : job.get(replica);
      if (lines == null) {
        return List.of();
      }
      return (lines.ended.isEmpty() ? lines.current : lines.ended).stream().map(Line::text)
          .toList();
    }
  }

  private static Replica replica(String uid, String replica) {
    return BY_JOB.computeIfAbsent(uid, k -> new LinkedHashMap<>())
        .computeIfAbsent(replica, k -> new Replica());
  }
}

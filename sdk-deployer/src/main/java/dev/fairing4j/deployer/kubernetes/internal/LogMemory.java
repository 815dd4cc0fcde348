package dev.fairing4j.deployer.kubernetes.internal;

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
 */
public final class LogMemory {
  /** Lines kept per replica, as many as a failure report shows. */
  public static final int LINES = FailureReport.LAST_LINES;
  /** Jobs kept. */
  public static final int JOBS = 64;
  private static final Map<String, Map<String, Deque<String>>> BY_JOB =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Map<String, Deque<String>>> e) {
          return size() > JOBS;
        }
      };

  private LogMemory() {}

  /** Remembers {@code line} as the newest of {@code replica} of the job with uid {@code uid}. */
  public static void record(String uid, String replica, String line) {
    if (uid.isEmpty()) {
      return;
    }
    synchronized (BY_JOB) {
      Deque<String> lines = BY_JOB.computeIfAbsent(uid, k -> new LinkedHashMap<>())
          .computeIfAbsent(replica, k -> new ArrayDeque<>());
      lines.addLast(line);
      if (lines.size() > LINES) {
        lines.removeFirst();
      }
    }
  }

  /** The last lines streamed of {@code replica} of the job {@code uid}, oldest first. */
  public static List<String> last(String uid, String replica) {
    synchronized (BY_JOB) {
      Map<String, Deque<String>> job = BY_JOB.get(uid);
      Deque<String> lines = job == null ? null : job.get(replica);
      return lines == null ? List.of() : List.copyOf(lines);
    }
  }
}

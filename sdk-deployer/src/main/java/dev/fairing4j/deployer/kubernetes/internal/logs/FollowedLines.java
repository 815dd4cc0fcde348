package dev.fairing4j.deployer.kubernetes.internal.logs;

import dev.fairing4j.core.LogLine;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The lines a job handle's log streams delivered, kept so that its logs can still be read once
 * the kubelet's copy is gone (a clean-pod policy that deletes the pods at the end, a deleted
 * job): a snapshot shows a followed replica whose pod no longer exists from here. Owned by one
 * job handle and bounded: the newest {@link #MAX_LINES} lines and {@link #MAX_CHARS} characters
 * across its replicas, older ones dropped first, so a handle kept for months holds at most a few
 * MiB. Thread-safe: one stream thread per container adds while callers read.
 */
public final class FollowedLines {
  /** At most this many lines over all replicas. */
  public static final int MAX_LINES = 20_000;
  /** At most this many characters of text over all replicas (about 4 MiB). */
  public static final long MAX_CHARS = 2L << 20;

  /** A line, and whether a stream of the default containers (no container(..)) delivered it. */
  private record Kept(LogLine line, boolean byDefault) {}

  private final Deque<Kept> lines = new ArrayDeque<>();
  private long chars;
  private boolean dropped;

  /** Keeps {@code line} of a stream of the default containers. */
  public void add(LogLine line) {
    add(line, true);
  }

  /**
   * Keeps {@code line}, dropping the oldest lines beyond the bounds; {@code byDefault} says a
   * stream of the default containers delivered it, not one of {@code container(..)}.
   */
  public synchronized void add(LogLine line, boolean byDefault) {
    lines.addLast(new Kept(line, byDefault));
    chars += line.text().length();
    while (lines.size() > MAX_LINES || chars > MAX_CHARS) {
      chars -= lines.removeFirst().line().text().length();
      dropped = true;
    }
  }

  /** Whether older lines were dropped to stay within the bounds. */
  public synchronized boolean dropped() {
    return dropped;
  }

  /**
   * The kept lines of the replicas not in {@code present} that {@code selection} selects: with
   * no container named, those the default streams delivered; with one, that container's.
   */
  public synchronized List<LogLine> missingFrom(Set<String> present, LogSelection selection) {
    List<LogLine> kept = new ArrayList<>();
    for (Kept entry : lines) {
      LogLine line = entry.line();
      boolean container = selection.container().map(line.container()::equals)
          .orElse(entry.byDefault());
      if (present.contains(line.replica()) || !selection.matchesReplica(line.replica())
          || !container
          || selection.since().filter(s -> line.timestamp().map(t -> t.isBefore(s))
              .orElse(false)).isPresent()) {
        continue;
      }
      kept.add(line);
    }
    // Each replica's lines in the order they came, replicas by name, as a snapshot gives them.
    Map<String, List<LogLine>> byReplica = new TreeMap<>();
    kept.forEach(l -> byReplica.computeIfAbsent(l.replica(), r -> new ArrayList<>()).add(l));
    List<LogLine> selected = new ArrayList<>();
    for (List<LogLine> ofReplica : byReplica.values()) {
      int from = selection.tail().map(n -> Math.max(0, ofReplica.size() - n)).orElse(0);
      selected.addAll(ofReplica.subList(from, ofReplica.size()));
    }
    return selected;
  }
}

package dev.fairing4j.deployer.job.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The last lines of a failed replica's log, as a failure report shows them. A replica that ran
 * its script through {@code torchrun} ends its log with torchrun's own report (a traceback of
 * the elastic agent and a {@code ChildFailedError} box, some 40 lines) which names the failed
 * rank but not why it failed: the script's own error is above it. So that report is replaced by
 * one line saying which rank exited with which code, and the lines shown are what the script
 * printed last.
 */
public final class LastLines {
  /** How many lines a failure report shows. */
  public static final int SHOWN = 20;
  /** How many lines to read so that {@link #SHOWN} remain after torchrun's report is cut. */
  public static final int READ = 100;

  private static final String SUMMARY = "torchrun: ";
  private static final String CHILD_FAILED =
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError";
  private static final Pattern RANK = Pattern.compile("^\\s*rank\\s*:\\s*(\\d+)"
      + " \\(local_rank: (\\d+)\\)");
  private static final Pattern EXIT = Pattern.compile("^\\s*exitcode\\s*:\\s*(-?\\d+)");

  private LastLines() {}

  /** The last {@link #SHOWN} lines of {@code lines}, torchrun's report made one line. */
  public static List<String> of(List<String> lines) {
    List<String> kept = withoutTorchrunReport(lines);
    // A node restarted in place appends each run to its log: show the last run, as a cluster's
    // log of the current container would.
    int previous = -1;
    int last = -1;
    for (int i = 0; i < kept.size(); i++) {
      if (kept.get(i).startsWith(SUMMARY)) {
        previous = last;
        last = i;
      }
    }
    if (previous >= 0) {
      kept = kept.subList(previous + 1, kept.size());
    }
    return List.copyOf(kept.subList(Math.max(0, kept.size() - SHOWN), kept.size()));
  }

  /** {@code lines} with each torchrun report (one per restart of the node) made one line. */
  static List<String> withoutTorchrunReport(List<String> lines) {
    List<String> kept = new ArrayList<>();
    int from = 0;
    for (int box = 0; box < lines.size(); box++) {
      if (!lines.get(box).startsWith(CHILD_FAILED)) {
        continue;
      }
      // The agent's traceback: indented frames up to its "Traceback" line (which a window
      // starting inside the report may not hold).
      int start = box;
      while (start > from && (lines.get(start - 1).startsWith(" ")
          || lines.get(start - 1).startsWith("Traceback (most recent call last):"))) {
        start--;
        if (lines.get(start).startsWith("Traceback")) {
          break;
        }
      }
      // The agent's "failed (exitcode: 1) local_rank: 0 ..." line comes just before its
      // traceback.
      if (start > from && lines.get(start - 1).contains("failed (exitcode:")) {
        start--;
      }
      // The box ends with its second rule of '=' after the ChildFailedError line.
      int end = box + 1;
      int rules = 0;
      while (end < lines.size() && rules < 2) {
        if (lines.get(end).startsWith("=====")) {
          rules++;
        }
        end++;
      }
      kept.addAll(lines.subList(from, start));
      kept.add(summary(lines.subList(box, end)).orElse(
          "torchrun: a worker process failed (torchrun's report cut; job.logs() has it)"));
      from = end;
      box = end - 1;
    }
    kept.addAll(lines.subList(from, lines.size()));
    return kept;
  }

  private static Optional<String> summary(List<String> report) {
    String rank = null;
    String exit = null;
    for (String line : report) {
      Matcher r = RANK.matcher(line);
      if (rank == null && r.find()) {
        rank = "rank " + r.group(1) + " (local rank " + r.group(2) + ")";
      }
      Matcher e = EXIT.matcher(line);
      if (exit == null && e.find()) {
        exit = e.group(1);
      }
    }
    if (rank == null || exit == null) {
      return Optional.empty();
    }
    return Optional.of("torchrun: " + rank + " exited with code " + exit
        + " (torchrun's report cut; job.logs() has it)");
  }
}

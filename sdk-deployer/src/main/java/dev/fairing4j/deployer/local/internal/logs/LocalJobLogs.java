package dev.fairing4j.deployer.local.internal.logs;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.local.internal.runtime.LogFormat;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The logs of a local job's replicas, read from their log files in the state directory; works the
 * same from the JVM that runs the job and from any other. An immutable request: each narrowing
 * returns a new one.
 */
public final class LocalJobLogs implements JobLogs {
  private final Supplier<Optional<JobRecord>> record;
  private final BooleanSupplier finished;
  private final Path jobDir;
  private final int tail;
  private final Optional<Instant> since;
  private final Optional<String> replica;

  /**
   * Logs of the job in {@code jobDir}.
   *
   * @param record reads the job's current record (empty once deleted)
   * @param finished true once no more lines can come (the job settled or lost its supervisor)
   */
  public LocalJobLogs(Supplier<Optional<JobRecord>> record, BooleanSupplier finished,
      Path jobDir) {
    this(record, finished, jobDir, -1, Optional.empty(), Optional.empty());
  }

  private LocalJobLogs(Supplier<Optional<JobRecord>> record, BooleanSupplier finished,
      Path jobDir, int tail, Optional<Instant> since, Optional<String> replica) {
    this.record = record;
    this.finished = finished;
    this.jobDir = jobDir;
    this.tail = tail;
    this.since = since;
    this.replica = replica;
  }

  @Override
  public JobLogs tail(int lines) {
    return new LocalJobLogs(record, finished, jobDir, Validators.atLeast("lines", lines, 0),
        since, replica);
  }

  @Override
  public JobLogs since(Instant time) {
    return new LocalJobLogs(record, finished, jobDir, tail,
        Optional.of(Objects.requireNonNull(time, "time")), replica);
  }

  @Override
  public JobLogs replica(String selector) {
    return new LocalJobLogs(record, finished, jobDir, tail, since,
        Optional.of(Validators.requireText("replica", selector)));
  }

  /**
   * The training container is the only one a local replica runs: its name reads the same logs,
   * any other is refused with the name there is.
   */
  @Override
  public JobLogs container(String name) {
    Validators.requireText("container", name);
    List<String> names = record.get().map(r -> r.replicas().stream()
        .map(JobRecord.Replica::container).distinct().toList()).orElse(List.of());
    if (!names.isEmpty() && !names.contains(name.trim())) {
      throw InvalidInputException.of("container", "the replicas of this local job run one"
          + " container, " + String.join(", ", names) + ", not '" + name.trim() + "'",
          "leave container(..) out; sidecars and init containers run on a Kubernetes cluster");
    }
    return this;
  }

  @Override
  public List<LogLine> snapshot() {
    List<LogLine> lines = new ArrayList<>();
    for (JobRecord.Replica r : selected()) {
      List<LogLine> ofReplica = new ArrayList<>();
      for (String raw : new LogTail(StateStore.logFile(jobDir, r.shortName())).rest()) {
        toLine(r, raw).ifPresent(ofReplica::add);
      }
      lines.addAll(tail < 0 || ofReplica.size() <= tail ? ofReplica
          : ofReplica.subList(ofReplica.size() - tail, ofReplica.size()));
    }
    return lines;
  }

  @Override
  public LogStream stream(Consumer<LogLine> consumer) {
    Objects.requireNonNull(consumer, "consumer");
    List<JobRecord.Replica> replicas = selected();
    return LogFollower.start(jobDir, replicas, this::toLine, tail, finished, this::jobEnded,
        consumer);
  }

  // Terminal by its conditions: its replicas may still be finishing (cleanPodPolicy None).
  private boolean jobEnded() {
    return record.get().map(r -> r.conditions().stream().anyMatch(c -> "True".equals(c.status())
        && (c.type().equals("Succeeded") || c.type().equals("Failed")))).orElse(true);
  }

  /**
   * The last {@code n} lines of one replica, as text, for a failure report; where a restart began
   * a new run, a line {@code --- run N (restart N-1) ---} marks it, so two runs' lines never read
   * as one.
   */
  public List<String> lastLines(String shortName, int n) {
    List<String> lines = new ArrayList<>();
    boolean restarted = false;
    for (String raw : new LogTail(StateStore.logFile(jobDir, shortName)).rest()) {
      java.util.OptionalInt run = LogFormat.run(raw);
      restarted |= run.isPresent();
      lines.add(run.isPresent() ? "--- run " + run.getAsInt() + " (restart "
          + (run.getAsInt() - 1) + ") ---" : LogFormat.parse(raw).text());
    }
    if (restarted) {
      lines.add(0, "--- run 1 ---");
    }
    return lines.subList(Math.max(0, lines.size() - n), lines.size());
  }

  private Optional<LogLine> toLine(JobRecord.Replica r, String raw) {
    if (LogFormat.run(raw).isPresent()) {
      return Optional.empty();
    }
    LogFormat.Entry entry = LogFormat.parse(raw);
    if (since.isPresent() && entry.time().map(t -> t.isBefore(since.get())).orElse(false)) {
      return Optional.empty();
    }
    return Optional.of(new LogLine(r.shortName(), r.container(), entry.text(), entry.time()));
  }

  private List<JobRecord.Replica> selected() {
    JobRecord current = record.get().orElseThrow(() -> FairingException.of("read logs",
        jobDir.getFileName().toString(), "the local job no longer exists (it was deleted)",
        "run the job again", null));
    List<JobRecord.Replica> all = current.replicas();
    if (replica.isEmpty()) {
      return all;
    }
    List<JobRecord.Replica> chosen = all.stream().filter(r -> r.shortName().equals(replica.get())
        || r.podName().equals(replica.get()) || r.type().equalsIgnoreCase(replica.get())).toList();
    if (chosen.isEmpty()) {
      throw InvalidInputException.of("replica", "'" + replica.get() + "' matches no replica of "
          + current.kind() + " " + current.name(), "use one of "
          + all.stream().map(JobRecord.Replica::shortName).toList()
          + " or a replica type such as '" + all.get(0).type().toLowerCase(java.util.Locale.ROOT)
          + "'");
    }
    return chosen;
  }

  @Override
  public String toString() {
    return "logs(" + jobDir.getFileName() + replica.map(r -> ", replica=" + r).orElse("")
        + (tail >= 0 ? ", tail=" + tail : "") + since.map(s -> ", since=" + s).orElse("") + ")";
  }
}

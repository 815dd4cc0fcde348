package dev.fairing4j.core.internal;

import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.MetricParser;
import dev.fairing4j.core.ProgressListener;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The logs of a job the pipeline started, reporting training progress while they are followed:
 * every line a stream delivers also goes through a {@link TrainingTracker}, whose events reach the
 * pipeline's progress listener, so a terminal's updating line and a notebook's display show the
 * epoch, percent, time left and metrics during {@code waitForCompletion}. Every cluster's job
 * handle wraps its logs with this; narrowing ({@code tail}, {@code since}, {@code replica}) keeps
 * the wrapping. Snapshots pass through untouched. Streams start as the work of the runtime the
 * job was submitted or attached on, whichever thread follows them, so closing that runtime ends
 * them.
 */
public final class ProgressTap implements JobLogs {
  private final JobLogs delegate;
  private final String job;
  private final ProgressListener listener;
  private final Owner owner;

  private ProgressTap(JobLogs delegate, String job, ProgressListener listener, Owner owner) {
    this.delegate = delegate;
    this.job = job;
    this.listener = listener;
    this.owner = owner;
  }

  /**
   * {@code logs} of {@code job} reporting to {@code listener}, followed as {@code owner}'s work;
   * unchanged for no listener and the shared owner.
   */
  public static JobLogs wrap(JobLogs logs, String job, ProgressListener listener, Owner owner) {
    Objects.requireNonNull(logs, "logs");
    Objects.requireNonNull(owner, "owner");
    if (GuardedListener.isSilent(listener) && owner.isShared()) {
      return logs; // nobody to tell: the lines go straight through
    }
    return new ProgressTap(logs, job, GuardedListener.guard(listener), owner);
  }

  @Override
  public JobLogs tail(int lines) {
    return new ProgressTap(delegate.tail(lines), job, listener, owner);
  }

  @Override
  public JobLogs since(Instant time) {
    return new ProgressTap(delegate.since(time), job, listener, owner);
  }

  @Override
  public JobLogs replica(String replica) {
    return new ProgressTap(delegate.replica(replica), job, listener, owner);
  }

  @Override
  public JobLogs container(String name) {
    return new ProgressTap(delegate.container(name), job, listener, owner);
  }

  @Override
  public List<LogLine> snapshot() {
    return delegate.snapshot();
  }

  @Override
  public LogStream stream(Consumer<LogLine> consumer) {
    Objects.requireNonNull(consumer, "consumer");
    if (GuardedListener.isSilent(listener)) {
      // Wrapped only for the runtime: no line needs parsing for progress nobody hears.
      return owner.call(() -> delegate.stream(consumer));
    }
    TrainingTracker tracker = new TrainingTracker(job, MetricParser.defaults(),
        Clock.systemUTC());
    return owner.call(() -> delegate.stream(line -> {
      // The caller's consumer first: progress is a view of the lines, never in their way.
      consumer.accept(line);
      tracker.accept(line).ifPresent(listener::onEvent);
    }));
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}

package dev.fairing4j.deployer.local.internal.state;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import java.util.Map;
import java.util.TreeMap;

/**
 * Tells a progress listener when a local job's phase changes, from the job's records, with the
 * created pods counted by phase. The in-JVM supervisor reports its own records through one; the
 * phase relay reports a detached supervisor's the same way. Not thread-safe: one owner reports.
 */
public final class PhaseReporter {
  private final String name;
  private final ProgressListener listener;
  // Null until the first phase is reported, which then reads "Created", not "Pending -> Created".
  private JobPhase last;

  /** Reports the phases of job {@code name} to {@code listener}. */
  public PhaseReporter(String name, ProgressListener listener) {
    this.name = name;
    this.listener = listener;
  }

  /** Reports {@code record}'s phase when it differs from the last one reported. */
  public void report(JobRecord record) {
    JobPhase phase = JobStatus.phaseOf(StatusMapper.conditions(record));
    if (phase != last) {
      Map<String, Integer> counts = new TreeMap<>();
      record.replicas().stream().filter(JobRecord.Replica::created)
          .forEach(r -> counts.merge(r.phase(), 1, Integer::sum));
      listener.onEvent(new ProgressEvent.PhaseChanged(name, last, phase, counts));
      last = phase;
    }
  }
}

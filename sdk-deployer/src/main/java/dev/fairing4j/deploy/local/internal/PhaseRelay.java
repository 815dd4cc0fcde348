package dev.fairing4j.deploy.local.internal;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Tells the submitting JVM's progress listener about the phase changes of a job supervised by a
 * process of its own, as an in-JVM supervisor does: a daemon thread reads the job's record a few
 * times a second until the job settles, is deleted or loses its supervisor, or this JVM exits.
 */
final class PhaseRelay {
  private static final long POLL_MILLIS = 200;

  private PhaseRelay() {}

  static void start(StateStore store, Path jobDir, String name, ProgressListener listener) {
    Thread thread = new Thread(() -> relay(store, jobDir, name, listener),
        "fairing4j-phases-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void relay(StateStore store, Path jobDir, String name,
      ProgressListener listener) {
    JobPhase last = JobPhase.PENDING;
    while (true) {
      Optional<JobRecord> record;
      try {
        record = store.read(jobDir);
      } catch (FairingException e) {
        return;
      }
      if (record.isEmpty()) {
        return;
      }
      JobPhase phase = JobStatus.phaseOf(StatusMapper.conditions(record.get()));
      if (phase != last) {
        Map<String, Integer> counts = new TreeMap<>();
        record.get().replicas().stream().filter(JobRecord.Replica::created)
            .forEach(r -> counts.merge(r.phase(), 1, Integer::sum));
        listener.onEvent(new ProgressEvent.PhaseChanged(name, last, phase, counts));
        last = phase;
      }
      if (record.get().settled() || !ProcessGroups.isAlive(record.get().supervisorPid(),
          StatusMapper.instant(record.get().supervisorStartedAt()))) {
        return;
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }
}

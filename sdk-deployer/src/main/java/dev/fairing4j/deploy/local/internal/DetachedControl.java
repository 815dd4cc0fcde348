package dev.fairing4j.deploy.local.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Stops the processes of a job this JVM does not supervise (another JVM's, or one whose JVM died),
 * through the pids and process groups its record lists, and the containers its cleanup command
 * removes (a podman job's). The supervisor of a live job, if any, sees the deletion mark and
 * starts nothing more.
 */
final class DetachedControl {
  private DetachedControl() {}

  /** Marks the job deleted, stops its processes, removes its directory. */
  static void delete(StateStore store, Path jobDir) {
    Optional<JobRecord> before = store.read(jobDir);
    store.markDeleting(jobDir);
    // Containers first (even of a job whose submit was cut short): their podman run processes
    // then end by themselves.
    ContainerCleanup.run(jobDir);
    before.ifPresent(record -> {
      Instant end = Instant.now().plusSeconds(20);
      JobRecord current = record;
      Instant quietSince = null;
      while (Instant.now().isBefore(end)) {
        boolean any = stopAll(current);
        boolean supervisorAlive = ProcessGroups.isAlive(current.supervisorPid(),
            StatusMapper.instant(current.supervisorStartedAt()));
        quietSince = any ? null : quietSince == null ? Instant.now() : quietSince;
        // A live supervisor writes no record once the mark is set, so its record never says
        // settled: a second without any live process is the sign it has stopped starting them.
        if (!any && (!supervisorAlive || current.settled()
            || Instant.now().isAfter(quietSince.plusSeconds(1)))) {
          break;
        }
        sleep(100);
        // The supervising JVM may have started a process just before it saw the mark.
        current = store.readMarked(jobDir).orElse(current);
      }
      // and whatever a supervisor started just before it saw the mark
      ContainerCleanup.run(jobDir);
    });
    store.remove(jobDir);
  }

  /** SIGTERM, then SIGKILL after a moment, to every live replica group; true if any was alive. */
  private static boolean stopAll(JobRecord record) {
    boolean any = false;
    for (JobRecord.Replica r : record.replicas()) {
      if (r.pid() != null && ProcessGroups.isAlive(r.pid(),
          StatusMapper.instant(r.pidStartedAt()))) {
        any = true;
        long pgid = r.pid();
        // bwrap wrappers pass nothing on; signal the replica's own processes first
        ProcessGroups.signal(pgid, false, m -> !m.command().equals("bwrap"));
        if (!ProcessGroups.awaitEmpty(pgid, Duration.ofSeconds(3))) {
          ProcessGroups.signal(pgid, true, m -> true);
          ProcessGroups.awaitEmpty(pgid, Duration.ofSeconds(5));
        }
      }
    }
    return any;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package dev.fairing4j.deployer.local.internal.supervisor;

import dev.fairing4j.deployer.local.internal.runtime.ContainerCleanup;
import dev.fairing4j.deployer.local.internal.runtime.ProcessGroups;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.local.internal.state.StatusMapper;
import dev.fairing4j.deployer.local.internal.state.SupervisorLock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Controls a job this JVM does not supervise: one with a supervisor process of its own, another
 * JVM's, or one whose supervisor died. It never writes the job's record (only the supervisor
 * does); it asks through the control files the supervisor polls, waits for the supervisor to let
 * go of the job's lock, and only then stops by process group whatever is left and removes the
 * directory. A supervisor process that does not answer is killed; a user's JVM never is.
 */
public final class DetachedControl {
  /** Longer than the longest grace period (5 s) plus a SIGKILL's aftermath. */
  private static final Duration ANSWER = Duration.ofSeconds(25);
  private static final Duration EXIT = Duration.ofSeconds(5);

  private DetachedControl() {}

  /** Marks the job deleted, waits for its supervisor to stop everything, removes its directory. */
  public static void delete(StateStore store, Path jobDir) {
    Optional<JobRecord> before = store.readMarked(jobDir);
    store.markDeleting(jobDir);
    // Containers first (even of a job whose submit was cut short): their podman run processes
    // then end by themselves.
    ContainerCleanup.run(jobDir);
    // The supervisor, in whichever process, sees the mark within a tenth of a second, stops
    // every replica (SIGTERM, SIGKILL after the grace period) and lets go of the lock after its
    // last write; from then on nothing writes into the directory.
    boolean released = SupervisorLock.awaitFree(jobDir, ANSWER);
    Optional<JobRecord> last = store.readMarked(jobDir).or(() -> before);
    last.ifPresent(record -> {
      if (record.detached()) {
        endSupervisor(record, released ? EXIT : Duration.ZERO);
      }
      // whatever outlived its supervisor (a SIGKILLed JVM's unsandboxed grandchildren)
      stopAll(record);
    });
    // and whatever a supervisor started just before it saw the mark
    ContainerCleanup.run(jobDir);
    store.remove(jobDir);
  }

  /**
   * Asks the job's supervisor to fail the job with {@code message} and stop its processes;
   * returns once they are gone. A job without a live supervisor has its processes stopped by
   * process group; its record stays as the supervisor left it.
   */
  public static void stop(StateStore store, Path jobDir, String message) {
    Optional<JobRecord> first = store.read(jobDir);
    if (first.isEmpty()) {
      return;
    }
    JobRecord record = first.get();
    if (supervisorAlive(record)) {
      store.requestStop(jobDir, message);
      Instant end = Instant.now().plus(ANSWER);
      while (Instant.now().isBefore(end)) {
        Optional<JobRecord> current = store.read(jobDir);
        if (current.isEmpty() || current.get().settled() || !supervisorAlive(current.get())) {
          break;
        }
        sleep(50);
      }
      record = store.read(jobDir).orElse(record);
      if (record.detached()) {
        // it exits right after its last write; one that did not answer is hung, and takes its
        // replicas with it when killed
        endSupervisor(record, record.settled() ? EXIT : Duration.ZERO);
      }
    }
    stopAll(record);
  }

  /**
   * Waits (briefly) for the supervisor process of a settled job to exit, as it does right after
   * its last write, so a caller that goes on finds no process of the job.
   */
  public static void awaitSupervisorExit(JobRecord record) {
    if (record.detached() && record.settled()) {
      endSupervisor(record, EXIT);
    }
  }

  /** The pids of the job's supervisor process (if it has one) and of its replicas' trees. */
  public static List<Long> processTree(JobRecord record) {
    Set<Long> pids = new LinkedHashSet<>();
    if (record.detached()) {
      supervisor(record).ifPresent(h -> {
        pids.add(h.pid());
        h.descendants().forEach(d -> pids.add(d.pid()));
      });
    }
    for (JobRecord.Replica r : record.replicas()) {
      if (r.pid() != null && ProcessGroups.isAlive(r.pid(),
          StatusMapper.instant(r.pidStartedAt()))) {
        pids.add(r.pid());
        ProcessGroups.members(r.pid()).forEach(m -> pids.add(m.pid()));
        ProcessHandle.of(r.pid()).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
      }
    }
    return new ArrayList<>(pids);
  }

  private static boolean supervisorAlive(JobRecord record) {
    return ProcessGroups.isAlive(record.supervisorPid(),
        StatusMapper.instant(record.supervisorStartedAt()));
  }

  private static Optional<ProcessHandle> supervisor(JobRecord record) {
    return supervisorAlive(record) ? ProcessHandle.of(record.supervisorPid()) : Optional.empty();
  }

  /** Waits up to {@code grace} for a supervisor process to exit, then kills it. */
  private static void endSupervisor(JobRecord record, Duration grace) {
    supervisor(record).ifPresent(handle -> {
      Instant end = Instant.now().plus(grace);
      while (supervisorAlive(record) && Instant.now().isBefore(end)) {
        sleep(20);
      }
      if (supervisorAlive(record)) {
        handle.destroyForcibly();
        Instant killed = Instant.now().plus(EXIT);
        while (supervisorAlive(record) && Instant.now().isBefore(killed)) {
          sleep(20);
        }
      }
    });
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

package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

/**
 * What a {@link JobMachine} asks of the world: start, signal and clean up replica processes,
 * run something later, and tell the time. {@link JobSupervisor} does it with real processes, a
 * scheduler and the clock; the machine's tests do it with a recording fake and virtual time.
 */
interface MachineEffects {
  /** A replica process that started: its pid and when. */
  record Started(long pid, Instant at) {}

  /** Something scheduled with {@link #schedule}, which may be called off. */
  interface Timer {
    /** Calls it off; no effect once it ran. */
    void cancel();
  }

  /** Now, for conditions, events and times in the record. */
  Instant now();

  /**
   * Starts run {@code attempt} of replica {@code id}. Its exit comes back later, through
   * {@link JobMachine#exited}, on the machine's thread.
   *
   * @throws IOException when the process cannot be started
   */
  Started launch(ReplicaId id, int attempt) throws IOException;

  /** Asks the process of {@code pod} to stop (SIGTERM to its group). */
  void terminate(String pod);

  /** Kills the process of {@code pod} (SIGKILL to its group). */
  void kill(String pod);

  /** Runs {@code task} on the machine's thread after {@code delay}. */
  Timer schedule(Duration delay, Runnable task);

  /** Removes what a stopped replica leaves outside its process group (a container). */
  void removeLeftovers(String pod);

  /** Whether someone asked, from any process, for the job to be deleted. */
  boolean deleting();
}

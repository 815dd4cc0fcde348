package dev.fairing4j.deployer.local.internal.supervisor;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.internal.JvmWide;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.deployer.local.internal.runtime.ProcessGroups;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.PhaseReporter;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.local.internal.state.StatusMapper;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells the submitting JVM's progress listener about the phase changes of a job supervised by a
 * process of its own, as an in-JVM supervisor does: a daemon thread reads the job's record a few
 * times a second until the job settles, is deleted or loses its supervisor, or the runtime that
 * submitted it closes.
 * A wait that sees the job end first calls {@link #catchUp}, so the last change reaches the
 * listener before the wait returns (a notebook only shows what arrives while its cell runs).
 */
public final class PhaseRelay implements AutoCloseable {
  private static final long POLL_MILLIS = 200;
  @JvmWide(why = "a wait on any handle of the job catches up the relay its "
      + "submit started",
      bound = "the detached jobs of this JVM not settled yet: a relay removes "
      + "its entry when its job settles, is deleted or loses its "
      + "supervisor")
  private static final Map<Path, PhaseRelay> RELAYS = new ConcurrentHashMap<>();

  private final StateStore store;
  private final Path jobDir;
  private final PhaseReporter phases;
  private final Owner owner;
  private Thread thread;

  private PhaseRelay(StateStore store, Path jobDir, String name, ProgressListener listener,
      Owner owner) {
    this.owner = owner;
    this.store = store;
    this.jobDir = jobDir;
    this.phases = new PhaseReporter(name, listener);
  }

  public static void start(StateStore store, Path jobDir, String name, ProgressListener listener) {
    Owner owner = Owner.current();
    PhaseRelay relay = new PhaseRelay(store, jobDir, name, listener, owner);
    RELAYS.put(jobDir, relay);
    owner.track(relay);
    synchronized (relay) {
      relay.thread = owner.thread("fairing4j-phases-" + name, relay::relay);
      relay.thread.start();
    }
  }

  /** Stops relaying: the runtime that submitted the job is closing. */
  @Override
  public void close() {
    Thread running;
    synchronized (this) {
      running = thread;
    }
    if (running != null) {
      running.interrupt();
    }
    RELAYS.remove(jobDir, this);
  }

  @Override
  public String toString() {
    return "the phase relay of " + jobDir;
  }

  /** Reports a change the relay has not reported yet, on the calling thread. */
  public static void catchUp(Path jobDir) {
    PhaseRelay relay = RELAYS.get(jobDir);
    if (relay != null) {
      relay.poll();
    }
  }

  private void relay() {
    try {
      while (poll()) {
        try {
          Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
      }
    } finally {
      RELAYS.remove(jobDir, this);
      owner.forget(this);
    }
  }

  /** Reads the record once, reports a change; false once there is nothing more to follow. */
  private synchronized boolean poll() {
    Optional<JobRecord> record = read();
    if (record.isEmpty()) {
      return false;
    }
    phases.report(record.get());
    if (record.get().settled()) {
      return false;
    }
    if (ProcessGroups.isAlive(record.get().supervisorPid(),
        StatusMapper.instant(record.get().supervisorStartedAt()))) {
      return true;
    }
    // A supervisor writes its last record before it exits: the record read above may be an
    // older one, and the listener would never hear how the job ended.
    read().ifPresent(phases::report);
    return false;
  }

  private Optional<JobRecord> read() {
    try {
      return store.read(jobDir);
    } catch (FairingException e) {
      return Optional.empty();
    }
  }

}

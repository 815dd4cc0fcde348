package dev.fairing4j.deployer.local.internal.supervisor;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The supervisor process of one job being submitted, seen from the submitting JVM: told its job
 * as soon as the job directory exists, so it gets ready while the job is staged and probed, then
 * handed the prepared job ({@link #hand}); ended if the submit fails before that.
 */
public final class DetachedSupervisor {
  private final Process process;

  private DetachedSupervisor(Process process) {
    this.process = process;
  }

  /**
   * A supervisor process for job {@code namespace/name} of {@code store}, which starts
   * {@code replicas} replica processes.
   */
  public static DetachedSupervisor assign(StateStore store, String namespace, String name,
      int replicas) {
    Process process = SpareSupervisors.take(store.jobDir(namespace, name)
        .resolve(StateStore.SUPERVISOR_LOG), replicas);
    try (OutputStream job = process.getOutputStream()) {
      job.write((store.root() + "\t" + namespace + "\t" + name + "\n")
          .getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      process.destroyForcibly();
      throw FairingException.of("start the local job's supervisor", namespace + "/" + name,
          e.toString(), "submit again, or run the job in this JVM with"
              + " LocalCluster.tiedToJvm()", e);
    }
    return new DetachedSupervisor(process);
  }

  /** The supervisor process. */
  public ProcessHandle handle() {
    return process.toHandle();
  }

  /**
   * Hands the prepared job over: writes its first record, then the spec the supervisor waits
   * for. From here on only the supervisor writes the record.
   */
  public void hand(Path jobDir, StateStore store, SupervisorSpec spec, JobRecord initial) {
    if (!process.isAlive()) {
      // the failed submit removes the job directory, its supervisor.log with it
      throw FairingException.of("start the local job's supervisor", jobDir.toString(),
          "the supervisor process exited with code " + process.exitValue()
              + " before it was given the job: " + lastLines(jobDir.resolve(
                  StateStore.SUPERVISOR_LOG)),
          "fix what it reports, or run the job in this JVM with LocalCluster.tiedToJvm()", null);
    }
    store.write(jobDir, initial);
    spec.write(jobDir);
  }

  private static String lastLines(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return lines.isEmpty() ? "it wrote nothing"
          : String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
    } catch (IOException e) {
      return "its output cannot be read (" + e + ")";
    }
  }

  /** Ends a supervisor that was never handed its job (the submit failed). */
  public void cancel() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

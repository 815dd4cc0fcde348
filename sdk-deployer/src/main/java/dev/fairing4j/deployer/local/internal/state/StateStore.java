package dev.fairing4j.deployer.local.internal.state;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.deployer.job.internal.Mappers;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The local cluster's state directory: one directory per job,
 * {@code <state>/jobs/<namespace>/<job>/}, holding {@code job.json}, the run directory and the
 * replica logs. Writes replace {@code job.json} atomically, so a reader in another JVM never sees
 * half a file.
 *
 * <p>Only the job's supervisor writes {@code job.json} (the submitter writes the first record
 * before it hands the job over). Everyone else asks through control files the supervisor polls:
 * {@code deleting} (stop everything, write nothing more) and {@code stop} (fail the job with
 * the file's message and stop its processes).
 */
public final class StateStore {
  private static final String RECORD = "job.json";
  private static final String DELETING = "deleting";
  private static final String STOP = "stop";
  /** The detached supervisor's output, where its own failures show. */
  public static final String SUPERVISOR_LOG = "supervisor.log";

  private final Path root;

  /** A store under {@code root}. */
  public StateStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  /**
   * Prepares the JSON writer for job records (class loading, introspection: a tenth of a second
   * or more in a fresh JVM), so a supervisor process can do it while it starts its replicas.
   */
  public static void warmUp() {
    JobRecord.Replica replica = new JobRecord.Replica("Master", 0, "w-master-0", "master-0",
        "pytorch", "Pending", null, null, 0, null, null, null, null, false);
    JobRecord record = new JobRecord(JobRecord.VERSION, "PyTorchJob", "w", "default", null, 0,
        null, null, List.of(), java.util.Map.of("w-master-0", java.util.Map.of(1, 2)),
        List.of(new JobRecord.Condition("Created", "True", "r", "m", null, null)), null, null,
        false, List.of(replica), List.of(new JobRecord.Event("Normal", "r", "o", "m", null)),
        true);
    try {
      Mappers.INDENTED.writeValue(java.io.OutputStream.nullOutputStream(), record);
    } catch (IOException e) {
      // only a warm-up: the first real write reports what is wrong
    }
  }

  /** The state directory. */
  public Path root() {
    return root;
  }

  /** The directory of one job. */
  public Path jobDir(String namespace, String name) {
    return root.resolve("jobs").resolve(namespace).resolve(name);
  }

  /** The run directory of a job (bound at the working directory). */
  public static Path runDir(Path jobDir) {
    return jobDir.resolve("run");
  }

  /** The log file of one replica. */
  public static Path logFile(Path jobDir, String shortName) {
    return jobDir.resolve("logs").resolve(shortName + ".log");
  }

  /** The record of the job in {@code jobDir}, if it exists and is not being deleted. */
  public Optional<JobRecord> read(Path jobDir) {
    if (Files.exists(jobDir.resolve(DELETING))) {
      return Optional.empty();
    }
    try {
      return Optional.of(Mappers.JSON.readValue(jobDir.resolve(RECORD).toFile(), JobRecord.class));
    } catch (NoSuchFileException | java.io.FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw FairingException.of("read local job", jobDir.toString(), e.getMessage(),
          "delete the directory if the job is no longer needed", e);
    }
  }

  /** The record of the job in {@code jobDir} even while it is being deleted. */
  public Optional<JobRecord> readMarked(Path jobDir) {
    try {
      return Optional.of(Mappers.JSON.readValue(jobDir.resolve(RECORD).toFile(), JobRecord.class));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Replaces the record of the job in {@code jobDir}; false when the directory is gone. */
  public boolean write(Path jobDir, JobRecord record) {
    if (!Files.isDirectory(jobDir) || Files.exists(jobDir.resolve(DELETING))) {
      return false;
    }
    Path tmp = null;
    try {
      // A temporary file of its own per write: two writers sharing one name (job.json.tmp)
      // moved each other's file away, and the loser failed with NoSuchFileException.
      tmp = Files.createTempFile(jobDir, RECORD + ".", ".tmp");
      Mappers.INDENTED.writeValue(tmp.toFile(), record);
      try {
        Files.move(tmp, jobDir.resolve(RECORD), StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, jobDir.resolve(RECORD), StandardCopyOption.REPLACE_EXISTING);
      }
      return true;
    } catch (IOException e) {
      deleteQuietly(tmp);
      if (!Files.isDirectory(jobDir) || Files.exists(jobDir.resolve(DELETING))) {
        return false;
      }
      throw FairingException.of("write local job state", jobDir.toString(), e.toString(),
          "check free disk space and permissions in " + root, e);
    }
  }

  /**
   * Asks the job's supervisor, in whichever process it runs, to fail the job with
   * {@code message} and stop its processes.
   */
  public void requestStop(Path jobDir, String message) {
    try {
      Path tmp = Files.createTempFile(jobDir, STOP + ".", ".tmp");
      Files.writeString(tmp, message);
      Files.move(tmp, jobDir.resolve(STOP), StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw FairingException.of("stop local job", jobDir.toString(), e.toString(),
          "check the permissions of " + root, e);
    }
  }

  /** The pending stop request of the job, taken (removed) by its supervisor. */
  public Optional<String> takeStopRequest(Path jobDir) {
    Path file = jobDir.resolve(STOP);
    try {
      String message = Files.readString(file);
      Files.deleteIfExists(file);
      return Optional.of(message);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("stopped on request (the request could not be read: " + e + ")");
    }
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException ignored) {
        // a temporary file in a directory that is going away
      }
    }
  }

  /** The job directories of {@code namespace}, sorted by name. */
  public List<Path> jobDirs(String namespace) {
    List<Path> dirs = new ArrayList<>();
    Path nsDir = root.resolve("jobs").resolve(namespace);
    if (!Files.isDirectory(nsDir)) {
      return dirs;
    }
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(nsDir, Files::isDirectory)) {
      stream.forEach(dirs::add);
    } catch (IOException e) {
      throw FairingException.of("list local jobs", nsDir.toString(), e.getMessage(),
          "check the permissions of " + root, e);
    }
    dirs.sort(Comparator.naturalOrder());
    return dirs;
  }

  /** The namespaces that have jobs, sorted. */
  public List<String> namespaces() {
    Path jobs = root.resolve("jobs");
    if (!Files.isDirectory(jobs)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(jobs)) {
      return list.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted()
          .toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /**
   * Marks the job as being deleted: from now on {@link #read} says it is gone and the supervisor
   * (in whichever JVM) starts nothing more for it.
   */
  public void markDeleting(Path jobDir) {
    try {
      if (Files.isDirectory(jobDir)) {
        Files.writeString(jobDir.resolve(DELETING), "");
      }
    } catch (IOException e) {
      throw FairingException.of("delete local job", jobDir.toString(), e.getMessage(),
          "check the permissions of " + root, e);
    }
  }

  /** Whether the job is being deleted. */
  public static boolean isDeleting(Path jobDir) {
    return Files.exists(jobDir.resolve(DELETING)) || !Files.isDirectory(jobDir);
  }

  /** Removes the job's directory: record, run directory, logs. Volume directories stay. */
  public void remove(Path jobDir) {
    if (!jobDir.normalize().startsWith(root)) {
      throw new IllegalArgumentException(jobDir + " is outside " + root);
    }
    try (Stream<Path> walk = Files.walk(jobDir)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (NoSuchFileException e) {
      // already gone
    } catch (IOException e) {
      throw FairingException.of("delete local job", jobDir.toString(), e.getMessage(),
          "remove the directory by hand", e);
    }
  }
}

package dev.fairing4j.deploy.local.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.fairing4j.core.FairingException;
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
 */
public final class StateStore {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT);
  private static final String RECORD = "job.json";
  private static final String DELETING = "deleting";

  private final Path root;

  /** A store under {@code root}. */
  public StateStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
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
      return Optional.of(JSON.readValue(jobDir.resolve(RECORD).toFile(), JobRecord.class));
    } catch (NoSuchFileException | java.io.FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw FairingException.of("read local job", jobDir.toString(), e.getMessage(),
          "delete the directory if the job is no longer needed", e);
    }
  }

  /** The record of the job in {@code jobDir} even while it is being deleted. */
  Optional<JobRecord> readMarked(Path jobDir) {
    try {
      return Optional.of(JSON.readValue(jobDir.resolve(RECORD).toFile(), JobRecord.class));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Replaces the record of the job in {@code jobDir}; false when the directory is gone. */
  public boolean write(Path jobDir, JobRecord record) {
    if (!Files.isDirectory(jobDir) || Files.exists(jobDir.resolve(DELETING))) {
      return false;
    }
    Path tmp = jobDir.resolve(RECORD + ".tmp");
    try {
      JSON.writeValue(tmp.toFile(), record);
      try {
        Files.move(tmp, jobDir.resolve(RECORD), StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, jobDir.resolve(RECORD), StandardCopyOption.REPLACE_EXISTING);
      }
      return true;
    } catch (IOException e) {
      if (!Files.isDirectory(jobDir)) {
        return false;
      }
      throw FairingException.of("write local job state", jobDir.toString(), e.getMessage(),
          "check free disk space in " + root, e);
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

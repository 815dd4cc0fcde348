package dev.fairing4j.deployer.local.internal.state;

import dev.fairing4j.core.FairingException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The lock a job's supervisor holds on {@code <job>/supervisor.lock} from before its first write
 * until after its last: the one-writer rule made checkable. Whoever deletes a job waits for the
 * lock before removing the directory, so a supervisor that is still stopping replicas never writes
 * into a directory that is being removed, or into the next job of the same name. The kernel drops
 * the lock when its process dies, even by SIGKILL.
 *
 * <p>A POSIX lock is per process and ends when the process closes any descriptor of the file, so
 * a JVM never opens the lock file of a job it supervises itself ({@code LiveJobs}).
 */
public final class SupervisorLock {
  static final String FILE = "supervisor.lock";

  private final Path file;
  private final FileChannel channel;
  private final Object fileKey;

  private SupervisorLock(Path file, FileChannel channel, Object fileKey) {
    this.file = file;
    this.channel = channel;
    this.fileKey = fileKey;
  }

  /**
   * Takes the lock of the job in {@code jobDir}.
   *
   * @throws FairingException when another process supervises the job, or the directory is gone
   */
  public static SupervisorLock acquire(Path jobDir) {
    Path file = jobDir.resolve(FILE);
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        throw FairingException.of("supervise local job", jobDir.toString(),
            "another process supervises this job", "delete the job first, then submit it again",
            null);
      }
      return new SupervisorLock(file, channel,
          Files.readAttributes(file, BasicFileAttributes.class).fileKey());
    } catch (IOException | OverlappingFileLockException e) {
      closeQuietly(channel);
      throw FairingException.of("supervise local job", jobDir.toString(), e.toString(),
          "check the permissions of the state directory", e);
    }
  }

  /**
   * True when the directory no longer holds the locked file: the job was removed (and perhaps
   * submitted again) by someone who did not wait for this supervisor.
   */
  public boolean isStale() {
    try {
      return !Objects.equals(fileKey,
          Files.readAttributes(file, BasicFileAttributes.class).fileKey());
    } catch (IOException e) {
      return true;
    }
  }

  /** Lets go of the job; nothing may be written into its directory after this. */
  public void release() {
    closeQuietly(channel);
  }

  /**
   * Waits until no process holds the lock of the job in {@code jobDir} (or the job has none);
   * true if it was free within {@code timeout}.
   */
  public static boolean awaitFree(Path jobDir, Duration timeout) {
    Path file = jobDir.resolve(FILE);
    Instant end = Instant.now().plus(timeout);
    while (true) {
      if (isFree(file)) {
        return true;
      }
      if (Instant.now().isAfter(end)) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return isFree(file);
      }
    }
  }

  private static boolean isFree(Path file) {
    // WRITE without CREATE: a job without a lock file has no supervisor that could hold it.
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        return false;
      }
      lock.release();
      return true;
    } catch (NoSuchFileException e) {
      return true;
    } catch (OverlappingFileLockException e) {
      // held by this very JVM: its supervisor is reached through LiveJobs, not waited for here
      return false;
    } catch (IOException e) {
      return !Files.exists(file);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // closing releases the lock; a failed close leaves it to the process's exit
      }
    }
  }
}

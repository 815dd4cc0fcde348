package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.core.internal.JvmWide;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The jobs this JVM supervises, by job directory, so a handle obtained through any
 * {@code LocalCluster} instance (a re-run notebook cell creates a new one) reaches the live
 * supervisor rather than only its state file.
 */
public final class LiveJobs {
  @JvmWide(why = "a job supervised in this JVM is reached by path from any "
      + "handle of it, and handles are values, not owners",
      bound = "the jobs supervised in this JVM now: the supervisor removes "
      + "its entry when the job ends")
  private static final Map<Path, JobSupervisor> LIVE = new ConcurrentHashMap<>();

  private LiveJobs() {}

  public static void register(Path jobDir, JobSupervisor supervisor) {
    LIVE.put(jobDir.toAbsolutePath().normalize(), supervisor);
  }

  public static void remove(Path jobDir) {
    LIVE.remove(jobDir.toAbsolutePath().normalize());
  }

  /** The live supervisor of the job in {@code jobDir}, if this JVM runs it. */
  public static Optional<JobSupervisor> get(Path jobDir) {
    return Optional.ofNullable(LIVE.get(jobDir.toAbsolutePath().normalize()));
  }
}

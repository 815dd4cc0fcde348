package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.internal.Sha256;
import java.nio.file.Path;
import java.util.List;

/**
 * Replicas of one job run as podman containers, each by a {@code podman run --rm} in its own
 * process group. SIGTERM reaches the container through podman's signal proxy; a SIGKILL reaches
 * only {@code podman run}, since the container runs under conmon in a session of its own, so a
 * kill also removes the container by name.
 *
 * <p>Container names are the pod name plus a short hash of the job directory: unique per state
 * directory and job, so a container found under that name is a leftover of this very job and safe
 * to remove, while jobs of the same name in other state directories (other clusters) never meet.
 */
public final class PodmanLauncher implements ReplicaLauncher {
  /** Label on every container the SDK runs. */
  public static final String MANAGED_LABEL = "fairing4j.dev/managed-by=fairing4j";
  /** Label key naming the job (its id, see {@link #jobId(Path)}). */
  public static final String JOB_LABEL = "fairing4j.dev/job";
  /** Label key naming the JVM that supervises the container. */
  public static final String SUPERVISOR_LABEL = "fairing4j.dev/supervisor";

  private final PodmanTool tool;
  private final String jobId;

  /** The launcher for the job in {@code jobDir}. */
  public PodmanLauncher(PodmanTool tool, Path jobDir) {
    this.tool = tool;
    this.jobId = jobId(jobDir);
  }

  /** A short stable id of the job in {@code jobDir}. */
  public static String jobId(Path jobDir) {
    return Sha256.hex(jobDir.toAbsolutePath().normalize().toString()).substring(0, 8);
  }

  /** The job's id, the value of its {@link #JOB_LABEL}. */
  public String jobId() {
    return jobId;
  }

  /** The container name of pod {@code podName}. */
  public String containerName(String podName) {
    return podName + "-" + jobId;
  }

  @Override
  public boolean isWrapper(ProcessGroups.Stat member, long leader) {
    // podman run is the wrapper, but the one to signal: it passes SIGTERM on to the container.
    return false;
  }

  @Override
  public void removeLeftovers(String podName) {
    tool.remove(List.of(containerName(podName)));
  }

  @Override
  public String toString() {
    return "podman";
  }
}

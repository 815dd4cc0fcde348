package dev.fairing4j.deployer.local;

import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.local.internal.PodmanSubmitter;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import dev.fairing4j.deployer.local.internal.settings.PodmanSettings;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * This machine as a cluster that runs images: each replica of a PyTorchJob, TFJob or batch Job is
 * a podman container of the image the pipeline built (pulled by digest), named after the
 * operator's pod and given the operator's environment exactly as {@link LocalCluster} gives it
 * ({@code MASTER_ADDR=127.0.0.1}, free local ports, TF_CONFIG, ...), on the host network.
 * Use it to check the image itself before a cluster runs it: its base, its installed packages,
 * its entry point.
 *
 * <ul>
 *   <li>Needs podman and runc ({@code apt-get install podman runc}). Every podman call runs with
 *       a containers.conf that selects runc and lowers the default ulimits, which podman needs
 *       where it runs inside a container itself; the SDK writes it into the state directory
 *       unless {@link #containersConf(Path)} names another.
 *   <li>Images from a loopback registry ({@code 127.0.0.1:5000/...}) are pulled over plain HTTP;
 *       any other registry needs TLS and, if private, a {@code podman login}.
 *   <li>PersistentVolumeClaims are bound from the same local directories as {@link LocalCluster}'s,
 *       so a model a job saves is found with {@link #claimDir(String)}.
 *   <li>Restart policies, status, logs, deletion, {@link #list(String)},
 *       {@link #attach(String, String)} and {@link dev.fairing4j.deployer.TrainingClient} work as
 *       on the local cluster. Containers are removed when
 *       they end, when the job is deleted, and when the supervising JVM dies, even by SIGKILL (a
 *       watchdog process removes them; a JVM whose watchdog was killed too leaves its containers
 *       to the next JVM that submits to podman).
 * </ul>
 *
 * <p>An immutable value: every option returns a new cluster.
 *
 * <pre>{@code
 * Cluster podman = Clusters.podman().volume("traindb-models-claim", Path.of("models"));
 * }</pre>
 */
public final class PodmanCluster extends MachineCluster<PodmanCluster> {
  static {
    // The deployers reach the backend through ClusterBackends, which says why.
    ClusterBackends.register(PodmanCluster.class, MachineCluster::backend);
  }

  private final PodmanSettings settings;

  private PodmanCluster(PodmanSettings settings) {
    super("podman", settings.local(), settings, new MachineBackend(settings.local(),
        (job, context, options, progress) -> PodmanSubmitter.submit(settings, job, context,
            options, progress), false, java.util.Optional.of(new PodmanImageStore(settings))));
    this.settings = settings;
  }

  /**
   * The podman cluster with defaults: podman found on PATH, state under
   * {@code ~/.local/state/fairing4j/podman} ({@code $XDG_STATE_HOME}), claim directories under
   * {@code ~/.local/share/fairing4j/volumes/<claim>} ({@code $XDG_DATA_HOME}).
   */
  public static PodmanCluster create() {
    return new PodmanCluster(PodmanSettings.defaults());
  }

  /** Runs every podman command with this containers.conf instead of the SDK's own. */
  public PodmanCluster containersConf(Path file) {
    Objects.requireNonNull(file, "file");
    return new PodmanCluster(new PodmanSettings(settings.local(),
        Optional.of(file.toAbsolutePath().normalize()), settings.podman()));
  }

  /** Uses this podman binary instead of the one on PATH. */
  public PodmanCluster podman(Path binary) {
    Objects.requireNonNull(binary, "binary");
    return new PodmanCluster(new PodmanSettings(settings.local(), settings.containersConf(),
        Optional.of(binary.toAbsolutePath().normalize())));
  }

  @Override
  PodmanCluster with(LocalSettings local) {
    return new PodmanCluster(settings.withLocal(local));
  }

  @Override
  String ownOptions() {
    return settings.podman().map(p -> ", podman=" + p).orElse("")
        + settings.containersConf().map(c -> ", containersConf=" + c).orElse("");
  }
}

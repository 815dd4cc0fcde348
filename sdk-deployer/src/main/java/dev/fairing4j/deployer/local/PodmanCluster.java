package dev.fairing4j.deployer.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.Validators;
import dev.fairing4j.deployer.Cluster;
import dev.fairing4j.deployer.internal.ClusterBackends;
import dev.fairing4j.deployer.internal.RenderedJob;
import dev.fairing4j.deployer.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.RecordedJobs;
import dev.fairing4j.deployer.local.internal.LocalSettings;
import dev.fairing4j.deployer.local.internal.PodmanSettings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 *   <li>Restart policies, status, logs, deletion, {@link #list(String)} and
 *       {@link #attach(String, String)} work as on the local cluster. Containers are removed when
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
public final class PodmanCluster implements Cluster {
  static {
    // The deployers reach the backend through ClusterBackends, which says why.
    ClusterBackends.register(PodmanCluster.class, cluster -> cluster.backend);
  }

  private final PodmanSettings settings;
  // Not part of the value: runs jobs' images, from the settings alone.
  private final PodmanBackend backend;

  private PodmanCluster(PodmanSettings settings) {
    this.settings = settings;
    this.backend = new PodmanBackend(settings);
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

  /** Keeps job records, logs and the SDK's containers.conf under {@code dir}. */
  public PodmanCluster stateDir(Path dir) {
    Objects.requireNonNull(dir, "dir");
    LocalSettings l = settings.local();
    return with(l.withStateDir(dir.toAbsolutePath().normalize()));
  }

  /**
   * Creates each claim's directory as {@code dir/<claim name>}, unless mapped by
   * {@link #volume}.
   */
  public PodmanCluster volumesDir(Path dir) {
    Objects.requireNonNull(dir, "dir");
    LocalSettings l = settings.local();
    return with(l.withVolumesDir(dir.toAbsolutePath().normalize()));
  }

  /** Backs PersistentVolumeClaim {@code claimName} with {@code dir}. */
  public PodmanCluster volume(String claimName, Path dir) {
    Validators.dns1123Subdomain("claimName", claimName);
    Objects.requireNonNull(dir, "dir");
    LocalSettings l = settings.local();
    Map<String, Path> claims = new HashMap<>(l.claims());
    claims.put(claimName, dir.toAbsolutePath().normalize());
    return with(l.withClaims(claims));
  }

  /** Runs replicas that request GPUs this machine lacks, instead of leaving them Unschedulable. */
  public PodmanCluster ignoreGpuRequests() {
    LocalSettings l = settings.local();
    return with(l.withIgnoreGpuRequests(true));
  }

  /**
   * Stops a job's containers when {@code waitForCompletion} times out or is interrupted (the job
   * then ends Failed); by default the job keeps running, as it would on a cluster.
   */
  public PodmanCluster killOnTimeout() {
    LocalSettings l = settings.local();
    return with(l.withKillOnTimeout(true));
  }

  /** The state directory. */
  public Path stateDir() {
    return settings.local().stateDir();
  }

  /** The directory that backs PersistentVolumeClaim {@code claimName}. */
  public Path claimDir(String claimName) {
    return settings.local().claimDir(Validators.dns1123Subdomain("claimName", claimName));
  }

  /** The podman jobs of {@code namespace}, by name, whichever JVM started them. */
  public List<TrainingJob> list(String namespace) {
    return jobs().list(namespace);
  }

  /** The podman jobs of every namespace. */
  public List<TrainingJob> listAll() {
    return jobs().listAll();
  }

  /** A handle on podman job {@code name} of {@code namespace}, if it exists. */
  public Optional<TrainingJob> attach(String namespace, String name) {
    return jobs().attach(namespace, name);
  }

  /** Submits through the backend; the package's tests submit rendered jobs directly. */
  TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions options,
      ProgressListener progress) {
    return backend.submit(job, context, options, progress);
  }

  @Override
  public String describe() {
    return "podman(state=" + stateDir()
        + settings.podman().map(p -> ", podman=" + p).orElse("")
        + settings.containersConf().map(c -> ", containersConf=" + c).orElse("")
        + (settings.local().ignoreGpuRequests() ? ", ignoreGpuRequests" : "")
        + (settings.local().killOnTimeout() ? ", killOnTimeout" : "") + ")";
  }

  private RecordedJobs jobs() {
    return new RecordedJobs(stateDir(), settings.local().killOnTimeout());
  }

  private PodmanCluster with(LocalSettings local) {
    return new PodmanCluster(settings.withLocal(local));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof PodmanCluster that && settings.equals(that.settings);
  }

  @Override
  public int hashCode() {
    return settings.hashCode();
  }

  @Override
  public String toString() {
    return describe();
  }
}

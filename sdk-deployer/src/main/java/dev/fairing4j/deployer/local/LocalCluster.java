package dev.fairing4j.deployer.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.Validators;
import dev.fairing4j.deployer.Cluster;
import dev.fairing4j.deployer.internal.ClusterBackends;
import dev.fairing4j.deployer.local.internal.RecordedJobs;
import dev.fairing4j.deployer.internal.RenderedJob;
import dev.fairing4j.deployer.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalSettings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * This machine as a cluster: runs a PyTorchJob, TFJob or batch Job by interpreting its rendered
 * manifest the way the Kubeflow training operator would, one local process per replica, named like
 * the operator's pods ({@code mnist-master-0}, {@code mnist-worker-0}) and given exactly the
 * operator's environment (CONTRACT.md), except that host names become {@code 127.0.0.1} and ports
 * become free local ports. A Trainer v2 TrainJob on {@code torch-distributed} runs the same way,
 * as its JobSet would: one process per node ({@code mnist-node-0-0}, {@code mnist-node-0-1}) with
 * the torch plugin's {@code PET_*} environment.
 *
 * <ul>
 *   <li>The build context is staged into a run directory under the state directory; each replica
 *       runs in a bubblewrap sandbox with the run directory at the container's working directory
 *       and each PersistentVolumeClaim's local directory at its mount path, so a script that saves
 *       to {@code /opt/mnist/models} writes into the claim's directory and nothing else on the
 *       host. {@code requirements.txt} is installed with {@code pip install --target}.
 *   <li>{@code python}/{@code torchrun} run with {@link #python(Path) the configured interpreter},
 *       or the first one that can import what the script imports ({@code /usr/bin/python3}
 *       first, where Debian's torch lives); a progress note says which and why.
 *   <li>Restart policies, backoff limits, deadlines and the success rules follow the operator; a
 *       replica that requests more {@code nvidia.com/gpu} than the machine has stays Pending as
 *       Unschedulable unless {@link #ignoreGpuRequests()}.
 *   <li>A job ends as the operator ends it: with a Master, when the Master succeeds; replicas
 *       still running then are left to finish under {@code cleanPodPolicy} None (the default),
 *       stopped under Running or All, and always stopped at a deadline or the backoff limit.
 *   <li>Each job has a small supervisor process of its own (a JVM on the SDK's class path, in a
 *       session of its own), so it keeps running when the JVM that submitted it exits, as a
 *       cluster job does. Jobs are recorded in the state directory: another instance or another
 *       JVM can {@link #list(String)} them, {@link #attach(String, String)} to them, follow their
 *       logs and delete them; {@code delete()} returns once no process of the job is left.
 *       Replicas die with their supervisor, even when it is SIGKILLed. {@link #tiedToJvm()}
 *       makes the submitting JVM the supervisor instead, so jobs end with it.
 * </ul>
 *
 * <p>An immutable value: every option returns a new cluster.
 *
 * <pre>{@code
 * Cluster local = LocalCluster.create().volume("traindb-models-claim", Path.of("models"));
 * }</pre>
 */
public final class LocalCluster implements Cluster {
  static {
    // The deployers reach the backend through ClusterBackends, which says why.
    ClusterBackends.register(LocalCluster.class, cluster -> cluster.backend);
  }

  private final LocalSettings settings;
  // Not part of the value: runs jobs and lists them, from the settings alone.
  private final LocalBackend backend;

  private LocalCluster(LocalSettings settings) {
    this.settings = settings;
    this.backend = new LocalBackend(settings);
  }

  /**
   * The local cluster with defaults: state under {@code ~/.local/state/fairing4j}
   * ({@code $XDG_STATE_HOME}), claim directories under
   * {@code ~/.local/share/fairing4j/volumes/<claim>} ({@code $XDG_DATA_HOME}), replicas
   * sandboxed with bubblewrap, the interpreter chosen per job.
   */
  public static LocalCluster create() {
    return new LocalCluster(LocalSettings.defaults());
  }

  /** Keeps job records, run directories and logs under {@code dir}. */
  public LocalCluster stateDir(Path dir) {
    Objects.requireNonNull(dir, "dir");
    return with(settings.withStateDir(dir.toAbsolutePath().normalize()));
  }

  /**
   * Creates each claim's directory as {@code dir/<claim name>}, unless mapped by
   * {@link #volume}.
   */
  public LocalCluster volumesDir(Path dir) {
    Objects.requireNonNull(dir, "dir");
    return with(settings.withVolumesDir(dir.toAbsolutePath().normalize()));
  }

  /** Backs PersistentVolumeClaim {@code claimName} with {@code dir}. */
  public LocalCluster volume(String claimName, Path dir) {
    Validators.dns1123Subdomain("claimName", claimName);
    Objects.requireNonNull(dir, "dir");
    Map<String, Path> claims = new HashMap<>(settings.claims());
    claims.put(claimName, dir.toAbsolutePath().normalize());
    return with(settings.withClaims(claims));
  }

  /**
   * Runs {@code python ...} and {@code torchrun ...} commands with {@code interpreter} instead of
   * choosing one per job.
   */
  public LocalCluster python(Path interpreter) {
    Objects.requireNonNull(interpreter, "interpreter");
    return with(settings.withPython(Optional.of(interpreter.toAbsolutePath())));
  }

  /** Runs replicas that request GPUs this machine lacks, instead of leaving them Unschedulable. */
  public LocalCluster ignoreGpuRequests() {
    return with(settings.withIgnoreGpuRequests(true));
  }

  /**
   * Runs replicas directly on the host, in the run directory, without bubblewrap. Container paths
   * are then NOT isolated: a script writing to {@code /opt/mnist/models} writes to the host's
   * {@code /opt}; only container paths in the command line are mapped to the run and volume
   * directories. Children a replica starts itself may also outlive a SIGKILLed JVM, which the
   * sandbox's pid namespace prevents.
   */
  public LocalCluster withoutSandbox() {
    return with(settings.withSandbox(false));
  }

  /**
   * Stops a job's processes when {@code waitForCompletion} times out or is interrupted (the job
   * then ends Failed); by default the job keeps running, as it would on a cluster.
   */
  public LocalCluster killOnTimeout() {
    return with(settings.withKillOnTimeout(true));
  }

  /**
   * Ties every job to this JVM, for scripts that must leave nothing running when they end: this
   * JVM supervises the job itself, and when it exits, normally, by Ctrl-C or even by SIGKILL,
   * the job's processes end with it (a later {@link #list(String)} shows the job Failed, its
   * supervisor lost). By default a job has a small supervisor process of its own and keeps
   * running when the JVM that submitted it exits, as a job on a cluster does; any JVM can then
   * {@link #attach(String, String)} to it, follow its logs and delete it.
   */
  public LocalCluster tiedToJvm() {
    return with(settings.withTiedToJvm(true));
  }

  /** The state directory. */
  public Path stateDir() {
    return settings.stateDir();
  }

  /** The directory that backs PersistentVolumeClaim {@code claimName}. */
  public Path claimDir(String claimName) {
    return settings.claimDir(Validators.dns1123Subdomain("claimName", claimName));
  }

  /** The local jobs of {@code namespace}, by name, whichever JVM started them. */
  public List<TrainingJob> list(String namespace) {
    return jobs().list(namespace);
  }

  /** The local jobs of every namespace. */
  public List<TrainingJob> listAll() {
    return jobs().listAll();
  }

  /** A handle on local job {@code name} of {@code namespace}, if it exists. */
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
    return "local(state=" + settings.stateDir() + ", sandbox="
        + (settings.sandbox() ? "bwrap" : "none")
        + settings.python().map(p -> ", python=" + p).orElse("")
        + (settings.ignoreGpuRequests() ? ", ignoreGpuRequests" : "")
        + (settings.killOnTimeout() ? ", killOnTimeout" : "")
        + (settings.tiedToJvm() ? ", tiedToJvm" : "") + ")";
  }

  private RecordedJobs jobs() {
    return backend.jobs();
  }

  private LocalCluster with(LocalSettings newSettings) {
    return new LocalCluster(newSettings);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof LocalCluster that && settings.equals(that.settings);
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

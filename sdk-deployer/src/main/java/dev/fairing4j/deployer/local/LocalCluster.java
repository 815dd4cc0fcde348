package dev.fairing4j.deployer.local;

import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.local.internal.LocalSubmitter;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import java.nio.file.Path;
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
 *       replica that requests more {@code nvidia.com/gpu} than the machine has is refused at
 *       submit (this machine never grows, unlike a cluster), unless {@link #ignoreGpuRequests()}
 *       runs it on the CPU.
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
public final class LocalCluster extends MachineCluster<LocalCluster> {
  static {
    // The deployers reach the backend through ClusterBackends, which says why.
    ClusterBackends.register(LocalCluster.class, MachineCluster::backend);
  }

  private final LocalSettings settings;

  private LocalCluster(LocalSettings settings) {
    super("local", settings, settings, new MachineBackend(settings,
        (job, context, options, progress) -> LocalSubmitter.submit(settings, job, context,
            options, progress), true, java.util.Optional.empty()));
    this.settings = settings;
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

  /**
   * Runs {@code python ...} and {@code torchrun ...} commands with {@code interpreter} instead of
   * choosing one per job.
   */
  public LocalCluster python(Path interpreter) {
    Objects.requireNonNull(interpreter, "interpreter");
    return with(settings.withPython(Optional.of(interpreter.toAbsolutePath())));
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

  @Override
  LocalCluster with(LocalSettings newSettings) {
    return new LocalCluster(newSettings);
  }

  @Override
  String ownOptions() {
    return ", sandbox=" + (settings.sandbox() ? "bwrap" : "none")
        + settings.python().map(p -> ", python=" + p).orElse("")
        + (settings.tiedToJvm() ? ", tiedToJvm" : "");
  }
}

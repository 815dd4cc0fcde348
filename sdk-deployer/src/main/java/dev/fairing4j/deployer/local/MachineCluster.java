package dev.fairing4j.deployer.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import dev.fairing4j.deployer.local.internal.settings.Retention;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the two clusters on this machine share, written once: {@link PodmanCluster} is the
 * {@link LocalCluster} with an image runtime, so both keep their jobs in a state directory, back
 * claims with the same local directories, list and attach to recorded jobs, and treat GPU
 * requests and timeouts alike. Package-private: users see these methods on the two public
 * clusters, each returning its own type.
 *
 * @param <C> the public cluster class, which every option returns
 */
abstract class MachineCluster<C extends MachineCluster<C>> implements Cluster {
  private final String kindName;
  private final LocalSettings local;
  // The whole value, the subclass's own options included: what equality compares.
  private final Record value;
  // Not part of the value: runs jobs and lists them, from the settings alone.
  private final MachineBackend backend;

  /**
   * A cluster named {@code kindName} ({@code local}, {@code podman}) whose whole configuration is
   * {@code value}, {@code local} being the part both clusters share.
   */
  MachineCluster(String kindName, LocalSettings local, Record value, MachineBackend backend) {
    this.kindName = kindName;
    this.local = local;
    this.value = value;
    this.backend = backend;
  }

  /** The same cluster with other shared options. */
  abstract C with(LocalSettings local);

  /** The subclass's own options for {@link #describe()}, each as {@code ", name=value"}. */
  abstract String ownOptions();

  /** The options both clusters share. */
  final LocalSettings local() {
    return local;
  }

  /**
   * Keeps job records, logs, run directories (local) and the SDK's containers.conf (podman)
   * under {@code dir}.
   */
  public C stateDir(Path dir) {
    Objects.requireNonNull(dir, "dir");
    return with(local().withStateDir(dir.toAbsolutePath().normalize()));
  }

  /**
   * Creates each claim's directory as {@code dir/<claim name>}, unless mapped by
   * {@link #volume}.
   */
  public C volumesDir(Path dir) {
    Objects.requireNonNull(dir, "dir");
    return with(local().withVolumesDir(dir.toAbsolutePath().normalize()));
  }

  /** Backs PersistentVolumeClaim {@code claimName} with {@code dir}. */
  public C volume(String claimName, Path dir) {
    Validators.dns1123Subdomain("claimName", claimName);
    Objects.requireNonNull(dir, "dir");
    Map<String, Path> claims = new HashMap<>(local().claims());
    claims.put(claimName, dir.toAbsolutePath().normalize());
    return with(local().withClaims(claims));
  }

  /**
   * Keeps the newest {@code count} finished jobs (all namespaces together) for at most
   * {@code maxAge}, removing older ones with their logs and run directories when a job is
   * submitted or jobs are listed; a job whose manifest sets {@code ttlSecondsAfterFinished} goes
   * that long after it finished, as on a cluster. The default keeps 100 jobs for 30 days.
   *
   * @throws InvalidInputException when {@code count} is negative or {@code maxAge} is not positive
   */
  public C keepFinishedJobs(int count, Duration maxAge) {
    if (count < 0) {
      throw InvalidInputException.of("count", count + " is below zero",
          "give 0 or more (0 removes every finished job at the next submit)");
    }
    if (maxAge == null || maxAge.isNegative() || maxAge.isZero()) {
      throw InvalidInputException.of("maxAge", maxAge + " is not a positive age",
          "give a duration such as Duration.ofDays(7)");
    }
    return with(local().withRetention(new Retention(count, maxAge)));
  }

  /**
   * Lets model servers of this cluster ({@code Deployers.serving(..)}, {@code Pipeline.serve()})
   * listen on every network interface, so other machines reach an endpoint at this machine's
   * address and the port in {@code endpoint.url()} (the machine's firewall permitting). By
   * default they listen on loopback ({@code 127.0.0.1}) only: a model served on a laptop is not
   * reachable from the network it is on.
   */
  public C exposeEndpoints() {
    return with(local().withExposeEndpoints(true));
  }

  /**
   * Declares namespaces jobs may go to beside {@code default}, as {@code kubectl create
   * namespace} does on a cluster. A job for any other namespace is refused at submit, as a
   * Kubernetes API server refuses it (a misspelled namespace would otherwise hold jobs nobody
   * finds), unless that namespace already holds jobs here. Replaces the namespaces declared
   * before.
   *
   * @throws InvalidInputException naming {@code namespaces} for a name that is not a DNS-1123
   *     label
   */
  public C namespaces(String... names) {
    Objects.requireNonNull(names, "names");
    java.util.Set<String> declared = new java.util.TreeSet<>();
    for (String name : names) {
      declared.add(Validators.dns1123Label("namespaces", name));
    }
    return with(local().withNamespaces(declared));
  }

  /** The namespaces declared with {@link #namespaces(String...)}, beside {@code default}. */
  public java.util.Set<String> declaredNamespaces() {
    return local().namespaces();
  }

  /**
   * Runs replicas that request GPUs this machine lacks on the CPU, instead of refusing the job at
   * submit (this machine never gains GPUs, so it could never be scheduled).
   */
  public C ignoreGpuRequests() {
    return with(local().withIgnoreGpuRequests(true));
  }

  /**
   * Stops a job's processes or containers when {@code waitForCompletion(timeout)} times out or is
   * interrupted (the job then ends Failed, its record and logs kept); by default the job keeps
   * running, as it would on a cluster.
   *
   * @deprecated say what a timeout does where you wait, as on every cluster:
   *     {@code job.waitForCompletion(timeout, OnTimeout.DELETE)} stops and removes the job
   */
  @Deprecated
  public C killOnTimeout() {
    return with(local().withKillOnTimeout(true));
  }

  /** The state directory. */
  public Path stateDir() {
    return local().stateDir();
  }

  /** The directory that backs PersistentVolumeClaim {@code claimName}. */
  public Path claimDir(String claimName) {
    return local().claimDir(Validators.dns1123Subdomain("claimName", claimName));
  }

  /** The jobs of {@code namespace} on this cluster, by name, whichever JVM started them. */
  public List<TrainingJob> list(String namespace) {
    return backend.jobs().list(namespace);
  }

  /** The jobs of every namespace on this cluster. */
  public List<TrainingJob> listAll() {
    return backend.jobs().listAll();
  }

  /** A handle on job {@code name} of {@code namespace} on this cluster, if it exists. */
  public Optional<TrainingJob> attach(String namespace, String name) {
    return backend.jobs().attach(namespace, name);
  }

  /** Submits through the backend; the package's tests submit rendered jobs directly. */
  TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions options,
      ProgressListener progress) {
    return backend.submit(job, context, options, progress);
  }

  /** For {@link dev.fairing4j.deployer.job.internal.ClusterBackends}, which says why. */
  MachineBackend backend() {
    return backend;
  }

  @Override
  public String describe() {
    return kindName + "(state=" + local.stateDir() + ownOptions()
        + (local.exposeEndpoints() ? ", exposeEndpoints" : "")
        + (local.namespaces().isEmpty() ? "" : ", namespaces=" + local.namespaces())
        + (local.ignoreGpuRequests() ? ", ignoreGpuRequests" : "")
        + (local.killOnTimeout() ? ", killOnTimeout" : "") + ")";
  }

  @Override
  public boolean equals(Object other) {
    return other != null && other.getClass() == getClass()
        && value.equals(((MachineCluster<?>) other).value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return describe();
  }
}

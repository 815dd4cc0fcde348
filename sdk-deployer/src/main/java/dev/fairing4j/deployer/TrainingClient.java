package dev.fairing4j.deployer;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.core.internal.WaitedPhases;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKinds;
import dev.fairing4j.deployer.monitor.EndpointList;
import dev.fairing4j.deployer.monitor.JobDetails;
import dev.fairing4j.deployer.monitor.JobList;
import dev.fairing4j.deployer.monitor.TopJobs;
import dev.fairing4j.deployer.monitor.TopNodes;
import dev.fairing4j.deployer.monitor.internal.JobDirectory;
import dev.fairing4j.deployer.trainer.RuntimeList;
import dev.fairing4j.deployer.trainer.RuntimePackages;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import dev.fairing4j.deployer.trainer.internal.RuntimePackagesProbe;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Arena's verbs as a Java API: list, inspect, follow, delete and re-attach to training jobs
 * (PyTorchJob, TFJob, Kubeflow Trainer v2 TrainJob and the SDK's batch Jobs) of one namespace,
 * and see where the GPUs go, on every cluster of the SDK: Kubernetes, and this machine's local
 * and podman clusters, whose jobs are read from their state directory.
 * An immutable value: {@link #inNamespace} derives a client for another namespace that shares
 * this one's connection, so notebook cells can keep one per team.
 *
 * <pre>{@code
 * var client = TrainingClient.connect(Clusters.kubernetes()).inNamespace("kubeflow");
 * var here = TrainingClient.connect(Clusters.podman()); // or Clusters.local(): the same verbs
 * client.list();                          // NAME STATUS TRAINER AGE NODE, namespace kubeflow
 * client.listAll();                       // NAMESPACE NAME STATUS ... of every namespace
 * TrainingJob job = client.attach("mnist"); // after a kernel restart
 * client.endpoints();                     // NAME KIND PHASE READY URL of the served models
 * Endpoint served = client.attachEndpoint("mnist-serve");
 * }</pre>
 */
public final class TrainingClient {
  private final JobDirectory directory;
  private final String namespace;
  private final Cluster cluster;

  private TrainingClient(JobDirectory directory, String namespace, Cluster cluster) {
    this.directory = directory;
    this.namespace = namespace;
    this.cluster = cluster;
  }

  /**
   * A client for {@code cluster}, in its default namespace (the kubeconfig context's). Nothing
   * is read until a verb needs it.
   *
   * @throws InvalidInputException for a {@link Cluster} the SDK did not make, which cannot list
   *     its jobs
   */
  public static TrainingClient connect(Cluster cluster) {
    Objects.requireNonNull(cluster, "cluster");
    if (!(ClusterBackends.of(cluster).orElse(null) instanceof JobDirectory.Provider provider)) {
      throw InvalidInputException.of("cluster", cluster.describe() + " cannot list its jobs",
          "connect to one of the SDK's clusters: Clusters.kubernetes(), Clusters.local() or"
              + " Clusters.podman()");
    }
    return new TrainingClient(provider.jobDirectory(), null, cluster);
  }

  /** The same client in {@code namespace}, sharing this one's connection. */
  public TrainingClient inNamespace(String namespace) {
    Validators.requireText("namespace", namespace);
    return new TrainingClient(directory, namespace.trim(), cluster);
  }

  /** The namespace the verbs act in. */
  public String namespace() {
    return namespace != null ? namespace : directory.defaultNamespace();
  }

  /**
   * The training jobs of the namespace: NAME STATUS TRAINER AGE NODE, and a line naming the
   * namespace.
   */
  public JobList list() {
    return directory.list(namespace());
  }

  /**
   * The training jobs of every namespace, with a NAMESPACE column ({@code kubectl get -A}); on
   * Kubernetes this needs the right to list them cluster-wide.
   */
  public JobList listAll() {
    return directory.listAll();
  }

  /**
   * A handle on a job started elsewhere (another process, before a notebook kernel restart),
   * whatever its kind.
   *
   * @throws FairingException when no PyTorchJob, TFJob, XGBoostJob, TrainJob or SDK batch Job has
   *     that name
   */
  public TrainingJob attach(String name) {
    Validators.requireText("name", name);
    return directory.attach(namespace(), name).orElseThrow(() -> notFound(name));
  }

  /**
   * The endpoints serving models in the namespace (serving Deployments, InferenceServices), each
   * with its status: NAME KIND PHASE READY URL.
   */
  public EndpointList endpoints() {
    return new EndpointList(directory.endpoints(namespace()).stream().map(Endpoint::status)
        .toList(), namespace());
  }

  /**
   * A handle on an endpoint served elsewhere (another process, before a notebook kernel
   * restart): predict, wait, read its logs, delete it.
   *
   * @throws FairingException when no serving Deployment or InferenceService has that name
   */
  public Endpoint attachEndpoint(String name) {
    Validators.requireText("name", name);
    return directory.endpoint(namespace(), name).orElseThrow(() -> FairingException.of(
        "find endpoint", namespace() + "/" + name, "no serving Deployment or InferenceService"
            + " named '" + name + "' in namespace " + namespace(), "list them with"
            + " client.endpoints(), or pick the namespace with inNamespace(..)", null));
  }

  /** The job and its instances (pod, status, node). */
  public JobDetails get(String name) {
    Validators.requireText("name", name);
    return directory.get(namespace(), name).orElseThrow(() -> notFound(name));
  }

  /** The logs of the job's replicas. */
  public JobLogs logs(String name) {
    return attach(name).logs();
  }

  /**
   * What happened to the job and its pods, oldest first ({@link TrainingJob#events()}): the
   * Kubeflow SDK's {@code get_job_events(name)}.
   */
  public List<JobEvent> events(String name) {
    return attach(name).events();
  }

  /**
   * Waits until the job is in one of {@code phases}, telling {@code onChange} of each phase on
   * the way ({@link TrainingJob#waitFor(Set, Duration, Consumer)}): the Kubeflow SDK's
   * {@code wait_for_job_status(name, status, timeout, callbacks=[..])}. On Kubernetes the wait
   * rides the cluster's shared watch, so it needs no polling interval. {@code phases} is checked
   * before the job is read.
   *
   * @throws InvalidInputException naming {@code phases} when it is empty
   * @throws FairingException when no job has that name
   * @throws dev.fairing4j.core.JobFailedException when the job fails and {@code phases} has no
   *     {@code FAILED}
   * @throws dev.fairing4j.core.JobTimeoutException when {@code timeout} passes first (the job
   *     keeps running)
   */
  public JobStatus waitFor(String name, Set<JobPhase> phases, Duration timeout,
      Consumer<JobStatus> onChange) {
    Set<JobPhase> wanted = WaitedPhases.of(phases);
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(onChange, "onChange");
    return attach(name).waitFor(wanted, timeout, onChange);
  }

  /**
   * The Kubeflow Trainer v2 runtimes a TrainJob of this namespace can run on (the Kubeflow SDK's
   * {@code list_runtimes()}): the ClusterTrainingRuntimes, then the namespace's TrainingRuntimes,
   * with their framework, node count, GPUs and image. The local and podman clusters list the
   * runtimes they stand in for ({@code torch-distributed}); a cluster without Trainer v2 has none.
   */
  public RuntimeList runtimes() {
    return new RuntimeList(directory.runtimes(namespace()), namespace());
  }

  /**
   * The runtime called {@code name} (the Kubeflow SDK's {@code get_runtime(name)}): the
   * ClusterTrainingRuntime of that name, else this namespace's TrainingRuntime.
   *
   * @throws FairingException when there is none, naming those there are
   */
  public TrainingRuntime runtime(String name) {
    Validators.requireText("name", name);
    RuntimeList all = runtimes();
    return all.find(name).orElseThrow(() -> FairingException.of("find runtime",
        namespace() + "/" + name, "no ClusterTrainingRuntime or TrainingRuntime named '" + name
            + "' (" + (all.runtimes().isEmpty() ? "there are none: is Kubeflow Trainer v2"
                + " installed?" : "this cluster has " + String.join(", ", all.names())) + ")",
        "pick one of client.runtimes(), or pick the namespace of a TrainingRuntime with"
            + " inNamespace(..)", null));
  }

  /**
   * What the runtime {@code name} has installed (the Kubeflow SDK's
   * {@code get_runtime_packages(runtime)}): a one-node TrainJob on it runs a short Python
   * program with the runtime's {@code python3} and reports every distribution and GPU it sees;
   * the job is deleted when it ends, fails or times out. On Kubernetes it runs the runtime's
   * image (RBAC: creating TrainJobs, as any run); on the local cluster, this machine's Python in
   * the job's sandbox. The podman cluster runs the image a pipeline builds, so a runtime has no
   * image of its own there, and it refuses.
   *
   * @throws FairingException when there is no runtime of that name
   * @throws InvalidInputException naming {@code runtime} on podman
   * @throws dev.fairing4j.core.JobFailedException when the program fails there (no python3)
   * @throws dev.fairing4j.core.JobTimeoutException when it does not end within {@code timeout}
   *     (an image that does not pull: the message says why)
   */
  public RuntimePackages runtimePackages(String name, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    return RuntimePackagesProbe.read(cluster, namespace(), runtime(name), timeout);
  }

  /** Deletes the job and what it owns; returns when they are gone. */
  public void delete(String name) {
    attach(name).delete();
  }

  /** GPUs requested and allocated per job of the namespace. */
  public TopJobs topJobs() {
    return directory.topJobs(namespace());
  }

  /** GPUs total and allocated per node of the cluster. */
  public TopNodes topNodes() {
    return directory.topNodes();
  }

  private FairingException notFound(String name) {
    return FairingException.of("find training job", namespace() + "/" + name,
        "no " + TrainingKinds.all().stream().map(TrainingKind::kind).collect(
            Collectors.joining(", ")) + ", TrainJob or fairing4j batch Job named '" + name
            + "' in namespace "
            + namespace(), "list the jobs with client.list(), or pick the namespace with"
            + " inNamespace(..)", null);
  }

  @Override
  public String toString() {
    return "TrainingClient(" + cluster.describe() + ", namespace=" + namespace() + ")";
  }
}

package dev.fairing4j.deployer.trainer;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.internal.DeployerKinds;
import dev.fairing4j.deployer.trainer.internal.TrainJobKind;
import dev.fairing4j.deployer.trainer.internal.TrainJobSettings;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A Kubeflow Trainer v2 TrainJob ({@code trainer.kubeflow.org/v1alpha1}): the training code run on
 * a runtime, by default the ClusterTrainingRuntime {@code torch-distributed}, on
 * {@link #numNodes(int)} nodes. The Trainer turns it into a JobSet whose {@code node} pods
 * ({@code <job>-node-0-<rank>-xxxxx}) run the image with the torch plugin's environment
 * ({@code PET_NNODES}, {@code PET_NPROC_PER_NODE}, {@code PET_NODE_RANK},
 * {@code PET_MASTER_ADDR=<job>-node-0-0.<job>}, {@code PET_MASTER_PORT=29500}); on a torch
 * runtime the preprocessor's {@code python -u <entry>} is started as {@code torchrun <entry>},
 * which reads them.
 *
 * <pre>{@code
 * Deployers.trainJob("mnist").numNodes(2)
 *     .mutate(Mutators.resources("2", "4Gi"))         // per node: resourcesPerNode
 *     .mutate(Mutators.gpus(1))
 *     .mutate(Mutators.pvc("training-data", "/data"))    // a runtime patch on the node job
 *     .on(Clusters.kubernetes())
 * }</pre>
 *
 * <p>What every kind takes works here too ({@code namespace}, {@code args}, {@code env},
 * {@code label(s)}, {@code annotation(s)}, {@code suspend}, {@code activeDeadlineSeconds},
 * {@code kueueQueue}, {@code uniqueName}, {@code replaceExisting}, the push credentials'
 * image-pull Secret), and so do the {@code Mutators}: resources become
 * {@code trainer.resourcesPerNode}, env {@code trainer.env}, pod-level settings (volumes and
 * mounts, image-pull Secrets, node selector, tolerations, affinity, service account, security
 * contexts, pod labels and annotations) one runtime patch on the {@code node} job. What a TrainJob
 * cannot carry (a sidecar, a PriorityClass, {@code backoffLimit}, {@code ttlSecondsAfterFinished},
 * the variables the runtime plugins set themselves) fails validation with the field and where it
 * can go instead; so does a name too long for the JobSet's pod names, which the Trainer would
 * only report later as a Warning event.
 *
 * <p>On submission the SDK checks that the runtime exists (else the error lists those that do),
 * that the cluster serves the Trainer's CRDs (else it says how to install them), and which
 * TrainJob shape the cluster's Trainer version takes ({@link TrainerApi}). On
 * {@code Clusters.local()} and {@code Clusters.podman()} a TrainJob on {@code torch-distributed}
 * runs as its JobSet would, one process (or container) per node named like its pod, with the
 * torch plugin's environment. An immutable value: obtain one from
 * {@code Deployers.trainJob(name)}.
 */
public final class TrainJobDeployer extends JobDeployer<TrainJobDeployer> {
  static {
    // How JobDeployer reaches this kind's rendering without a protected internal type.
    DeployerKinds.register(TrainJobDeployer.class, (deployer, context) -> deployer.kind(context));
  }

  /** The runtime a TrainJob uses unless told otherwise. */
  public static final String DEFAULT_RUNTIME = TrainJobs.DEFAULT_RUNTIME;
  /** The trainer container (and replicated job) of the shipped runtimes. */
  public static final String CONTAINER = TrainJobs.NODE;

  private final TrainJobSettings settings;

  private TrainJobDeployer(JobOptions options, TrainJobSettings settings) {
    super(options);
    this.settings = settings;
  }

  /**
   * A TrainJob called {@code name} on ClusterTrainingRuntime {@value #DEFAULT_RUNTIME}, one node,
   * in namespace {@code default}.
   *
   * @throws dev.fairing4j.core.InvalidInputException when the name is not a DNS-1035 label
   */
  public static TrainJobDeployer named(String name) {
    return new TrainJobDeployer(JobOptions.named(name), TrainJobSettings.defaults());
  }

  /** Runs on the ClusterTrainingRuntime {@code name}, e.g. {@code torch-distributed}. */
  public TrainJobDeployer runtime(String name) {
    return with(settings.withRuntime(name, false));
  }

  /** Runs on the TrainingRuntime {@code name} of the job's own namespace. */
  public TrainJobDeployer namespacedRuntime(String name) {
    return with(settings.withRuntime(name, true));
  }

  /** How many nodes (pods of the {@code node} job) train together; at least 1. */
  public TrainJobDeployer numNodes(int count) {
    return with(settings.withNumNodes(count));
  }

  /**
   * Processes per node ({@code PET_NPROC_PER_NODE}; at least 1). Unset, the TrainJob says one
   * per GPU of the resources per node, else 1, so a CPU node does not start one process per core
   * as the runtime's "auto" would.
   */
  public TrainJobDeployer numProcPerNode(int count) {
    return with(settings.withNumProcPerNode(count));
  }

  /** Fetches the dataset from {@code storageUri} before training ({@code /workspace/dataset}). */
  public TrainJobDeployer datasetInitializer(String storageUri) {
    return datasetInitializer(Initializer.of(storageUri));
  }

  /** The dataset initializer: the runtime must have a {@code dataset-initializer} job. */
  public TrainJobDeployer datasetInitializer(Initializer initializer) {
    return with(settings.withDataset(initializer));
  }

  /** Fetches the model from {@code storageUri} before training ({@code /workspace/model}). */
  public TrainJobDeployer modelInitializer(String storageUri) {
    return modelInitializer(Initializer.of(storageUri));
  }

  /** The model initializer: the runtime must have a {@code model-initializer} job. */
  public TrainJobDeployer modelInitializer(Initializer initializer) {
    return with(settings.withModel(initializer));
  }

  /**
   * The controller that reconciles the job: {@code trainer.kubeflow.org/trainjob-controller}
   * (the default) or {@code kueue.x-k8s.io/multikueue} (MultiKueue dispatches it to a worker
   * cluster).
   */
  public TrainJobDeployer managedBy(String controller) {
    return with(settings.withManagedBy(controller));
  }

  /**
   * Whether the command runs through {@code torchrun}, which reads the torch plugin's
   * {@code PET_*} variables. By default it does when the runtime's name starts with
   * {@code torch} (not {@code torchtune}); {@code true} makes a missing {@code python -u} to
   * replace an error, {@code false} keeps the preprocessor's command as it is.
   */
  public TrainJobDeployer torchrun(boolean enabled) {
    return with(settings.withTorchrun(enabled));
  }

  /**
   * The trainer's command for this run instead of the preprocessor's (the Kubeflow SDK's
   * {@code TrainerCommand}), e.g. {@code command("python3", "-m", "mypkg.train")}; the
   * deployer's {@link #args(String...)} follow it. It runs as given, not through torchrun,
   * unless {@code torchrun(true)} asks for it. Changes the command line without a rebuild.
   *
   * @throws dev.fairing4j.core.InvalidInputException naming {@code command} when it is empty or
   *     holds a blank part
   */
  public TrainJobDeployer command(String... command) {
    return command(Arrays.asList(command));
  }

  /** Like {@link #command(String...)}. */
  public TrainJobDeployer command(List<String> command) {
    return with(settings.withCommand(command));
  }

  /** Which Trainer version's TrainJob shape is sent; see {@link TrainerApi} (default AUTO). */
  public TrainJobDeployer trainerApi(TrainerApi api) {
    return with(settings.withApi(api));
  }

  /** The runtime's name. */
  public String runtimeName() {
    return settings.runtime();
  }

  /** The number of nodes. */
  public int numNodes() {
    return settings.numNodes();
  }

  @Override
  protected TrainJobDeployer withOptions(JobOptions newOptions) {
    return new TrainJobDeployer(newOptions, settings);
  }

  /** None: a TrainJob's pods are all alike; {@code mutate(m, type)} is refused. */
  @Override
  protected Set<ReplicaType> replicaTypes() {
    return Set.of();
  }

  @Override
  protected String kindName() {
    return "TrainJob";
  }

  private TrainJobDeployer with(TrainJobSettings newSettings) {
    return new TrainJobDeployer(options(), newSettings);
  }

  private TrainJobKind kind(BuildContext context) {
    return new TrainJobKind(settings, Objects.requireNonNull(context, "context"));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TrainJobDeployer that && options().equals(that.options())
        && settings.equals(that.settings);
  }

  @Override
  public int hashCode() {
    return Objects.hash(options(), settings);
  }

  @Override
  public String toString() {
    return "TrainJob[" + describeOptions() + ", runtime=" + (settings.namespacedRuntime()
        ? "TrainingRuntime/" : "") + settings.runtime() + ", nodes=" + settings.numNodes()
        + settings.numProcPerNode().map(n -> ", procs=" + n).orElse("")
        + settings.dataset().map(d -> ", dataset=" + d.storageUri()).orElse("")
        + settings.model().map(m -> ", model=" + m.storageUri()).orElse("")
        + (settings.api() == TrainerApi.AUTO ? "" : ", api=" + settings.api())
        + settings.command().map(c -> ", command=" + c).orElse("") + "]";
  }
}

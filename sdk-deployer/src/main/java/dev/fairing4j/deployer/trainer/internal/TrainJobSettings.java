package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.trainer.Initializer;
import dev.fairing4j.deployer.trainer.TrainerApi;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a TrainJob deployer adds to the shared job options, as one immutable value.
 *
 * @param runtime the runtime's name
 * @param namespacedRuntime a TrainingRuntime of the job's namespace instead of a
 *     ClusterTrainingRuntime
 * @param numNodes training nodes (pods of the {@code node} job)
 * @param numProcPerNode processes per node; empty: one per GPU of {@code resourcesPerNode}, else 1
 * @param dataset the dataset initializer
 * @param model the model initializer
 * @param managedBy the controller that reconciles the job; empty for the Trainer's default
 * @param torchrun whether the command runs through torchrun; empty: when the runtime's name says
 *     torch
 * @param api which Trainer version's TrainJob shape is sent
 * @param command the trainer's command instead of the preprocessor's; empty: the preprocessor's
 */
public record TrainJobSettings(String runtime, boolean namespacedRuntime, int numNodes,
    Optional<Integer> numProcPerNode, Optional<Initializer> dataset, Optional<Initializer> model,
    Optional<String> managedBy, Optional<Boolean> torchrun, TrainerApi api,
    Optional<List<String>> command) {

  /** Checks the parts. */
  public TrainJobSettings {
    // A runtime is an object: its name is a DNS-1123 subdomain of at most 253 characters.
    Validators.dns1123Subdomain("runtime", runtime);
    Validators.atLeast("numNodes", numNodes, 1);
    Objects.requireNonNull(numProcPerNode, "numProcPerNode")
        .ifPresent(n -> Validators.atLeast("numProcPerNode", n, 1));
    Objects.requireNonNull(dataset, "dataset");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(managedBy, "managedBy").ifPresent(TrainJobRules::checkManagedBy);
    Objects.requireNonNull(torchrun, "torchrun");
    Objects.requireNonNull(api, "api");
    command = Objects.requireNonNull(command, "command").map(List::copyOf);
  }

  /** The defaults: {@code torch-distributed}, one node, v2.3 or what the cluster takes. */
  public static TrainJobSettings defaults() {
    return new TrainJobSettings(TrainJobs.DEFAULT_RUNTIME, false, 1, Optional.empty(),
        Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), TrainerApi.AUTO,
        Optional.empty());
  }

  /** The runtime kind: ClusterTrainingRuntime, or TrainingRuntime. */
  public String runtimeKind() {
    return namespacedRuntime ? TrainJobs.NAMESPACED_RUNTIME : TrainJobs.CLUSTER_RUNTIME;
  }

  /**
   * Whether the command goes through torchrun: as set, else when the runtime's name says torch
   * (the shipped {@code torch-distributed*}, not {@code torchtune-*}, whose command is tune's)
   * and the command is the preprocessor's: a command given here runs as given.
   */
  public boolean usesTorchrun() {
    return torchrun.orElseGet(() -> command.isEmpty() && runtime.startsWith("torch")
        && !runtime.startsWith("torchtune"));
  }

  /** With another runtime. */
  public TrainJobSettings withRuntime(String name, boolean namespaced) {
    return new TrainJobSettings(name, namespaced, numNodes, numProcPerNode, dataset, model,
        managedBy, torchrun, api, command);
  }

  /** With another node count. */
  public TrainJobSettings withNumNodes(int value) {
    return new TrainJobSettings(runtime, namespacedRuntime, value, numProcPerNode, dataset,
        model, managedBy, torchrun, api, command);
  }

  /** With another process count. */
  public TrainJobSettings withNumProcPerNode(int value) {
    return new TrainJobSettings(runtime, namespacedRuntime, numNodes, Optional.of(value),
        dataset, model, managedBy, torchrun, api, command);
  }

  /** With a dataset initializer. */
  public TrainJobSettings withDataset(Initializer value) {
    return new TrainJobSettings(runtime, namespacedRuntime, numNodes, numProcPerNode,
        Optional.of(Objects.requireNonNull(value, "datasetInitializer")), model, managedBy,
        torchrun, api, command);
  }

  /** With a model initializer. */
  public TrainJobSettings withModel(Initializer value) {
    return new TrainJobSettings(runtime, namespacedRuntime, numNodes, numProcPerNode, dataset,
        Optional.of(Objects.requireNonNull(value, "modelInitializer")), managedBy, torchrun, api,
        command);
  }

  /** With a managing controller. */
  public TrainJobSettings withManagedBy(String value) {
    return new TrainJobSettings(runtime, namespacedRuntime, numNodes, numProcPerNode, dataset,
        model, Optional.of(Validators.requireText("managedBy", value)), torchrun, api, command);
  }

  /** With torchrun on or off. */
  public TrainJobSettings withTorchrun(boolean value) {
    return new TrainJobSettings(runtime, namespacedRuntime, numNodes, numProcPerNode, dataset,
        model, managedBy, Optional.of(value), api, command);
  }

  /**
   * With the trainer's own command.
   *
   * @throws dev.fairing4j.core.InvalidInputException naming {@code command} when it is empty or
   *     holds a blank part
   */
  public TrainJobSettings withCommand(List<String> value) {
    Objects.requireNonNull(value, "command");
    if (value.isEmpty() || value.stream().anyMatch(p -> p == null || p.isBlank())) {
      throw dev.fairing4j.core.InvalidInputException.of("command", value.isEmpty()
          ? "is empty, so the trainer would have nothing to run" : "holds a blank part: "
              + value, "name the program and its arguments, e.g. command(\"python3\", \"-m\","
              + " \"mypkg.train\"); to keep the preprocessor's command, do not call command(..)");
    }
    return new TrainJobSettings(runtime, namespacedRuntime, numNodes, numProcPerNode, dataset,
        model, managedBy, torchrun, api, Optional.of(value));
  }

  /** With another API shape. */
  public TrainJobSettings withApi(TrainerApi value) {
    return new TrainJobSettings(runtime, namespacedRuntime, numNodes, numProcPerNode, dataset,
        model, managedBy, torchrun, Objects.requireNonNull(value, "trainerApi"), command);
  }
}

package dev.fairing4j.core;

import java.util.Optional;

/**
 * The last stage of a pipeline: submits the job that runs a built image (or, on the local cluster,
 * the build context itself) and returns a handle to follow it. These are the steps
 * {@link Pipeline} calls; the SDK's deployers ({@code Deployers.pyTorchJob(..)}) hand them over
 * through {@link DeployerSource#asDeployer()}, so that their own completion lists show only the
 * settings a user writes. Implement this interface for a deployer of your own.
 */
public interface Deployer extends DeployerSource {
  /** A deployer is its own steps. */
  @Override
  default Deployer asDeployer() {
    return this;
  }

  /** The job name as configured. */
  String jobName();

  /**
   * Checks the whole job configuration against {@code context} before anything is built or sent:
   * names, replica counts, quantities, mount paths. Throws {@link InvalidInputException}.
   */
  void validate(BuildContext context);

  /**
   * Checks the job against {@code context} and renders it once, for a dry run or a submission
   * of exactly what was checked ({@link DeploymentPlan}). {@link Pipeline} plans before it
   * builds, so a mistake costs no build. The default validates now and renders when asked
   * ({@link DeploymentPlan#validated}); the SDK's deployers render here, once.
   *
   * @throws InvalidInputException naming the field and the fix
   */
  default DeploymentPlan plan(BuildContext context) {
    return DeploymentPlan.validated(this, context);
  }

  /**
   * Checks, before anything is built or sent, that {@link #deploy} has somewhere to submit: the
   * cluster is chosen and its local configuration (kubeconfig, context, namespace) reads. Files
   * only, never a request. {@link Pipeline#run()} calls it first; the default checks nothing.
   *
   * @throws InvalidInputException naming the setting and the fix
   */
  default void validateTarget() {}

  /**
   * Whether this deployer runs an image. The local cluster returns false: it runs the context
   * directly, so the pipeline builds and pushes nothing.
   */
  default boolean needsImage() {
    return true;
  }

  /**
   * The image store of the cluster this deployer submits to, when that cluster runs images from
   * a store of its own on this machine ({@code Clusters.podman()}): a builder without a registry
   * target builds into it. Empty by default (a registry is needed).
   */
  default Optional<LocalImageStore> localImageStore() {
    return Optional.empty();
  }

  /**
   * The objects {@link #deploy} would create, as multi-document YAML ready for
   * {@code kubectl create -f -}. {@code image} is the planned image when no image is built.
   */
  String render(BuildContext context, Optional<ImageRef> image);

  /**
   * The same deployer, also creating an image-pull Secret from {@code credentials} and
   * referencing it from every pod, so a private image pulls. The default ignores them (for
   * deployers that pull nothing).
   */
  default Deployer withPullCredentials(RegistryCredentials credentials) {
    return this;
  }

  /**
   * This deployer for one run among several of the same image ({@link BuiltPipeline#run}): the
   * job named as {@code variant} says, with its arguments, environment and labels added. Empty
   * when this deployer cannot make variants (the default, for a deployer of your own).
   */
  default Optional<Deployer> variant(JobVariant variant) {
    return Optional.empty();
  }

  /**
   * A handle on the job called {@code name} where this deployer submits (its cluster and
   * namespace), if one exists; reads the cluster. What a resumed experiment finds its trials
   * with. The default finds none (for a deployer of your own).
   */
  default Optional<TrainingJob> attach(String name) {
    return Optional.empty();
  }

  /** Submits the job; {@code image} is empty exactly when {@link #needsImage()} is false. */
  TrainingJob deploy(BuildContext context, Optional<ImageRef> image, ProgressListener progress);
}

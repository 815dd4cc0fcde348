package dev.fairing4j.deployer.job;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Deployer;
import dev.fairing4j.core.DeploymentPlan;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobVariant;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.ClusterBackend;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.job.internal.ClusterBound;
import dev.fairing4j.deployer.job.internal.DeployerKinds;
import dev.fairing4j.deployer.job.internal.JobFinder;
import dev.fairing4j.deployer.job.internal.JobRendering;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link JobDeployer}'s steps as the pipeline calls them. They live here, not on the deployer,
 * so that a deployer's public methods are the settings a user writes; this class sits in the
 * deployer's package to reach its kind's name.
 */
final class JobSteps implements Deployer, ClusterBound {
  private final JobDeployer<?> deployer;

  JobSteps(JobDeployer<?> deployer) {
    this.deployer = Objects.requireNonNull(deployer, "deployer");
  }

  @Override
  public String jobName() {
    return deployer.jobName();
  }

  @Override
  public Optional<Cluster> cluster() {
    return deployer.options().cluster();
  }

  @Override
  public Optional<String> namespace() {
    return deployer.options().namespace();
  }

  @Override
  public String kindName() {
    return deployer.kindName();
  }

  /**
   * Checks the whole configuration against {@code context} (name length against pod-name
   * suffixes, mutator targets, what the mutators produced), before anything is built or sent.
   */
  @Override
  public void validate(BuildContext context) {
    plan(context);
  }

  /** Checks the job against {@code context} and renders it, once (see {@link DeploymentPlan}). */
  @Override
  public DeploymentPlan plan(BuildContext context) {
    return JobRendering.plan(deployer.options(), DeployerKinds.of(deployer, context), context);
  }

  /**
   * Checks that the job has somewhere to run: a cluster chosen with {@code on(cluster)}, one of
   * fairing4j's, whose local configuration (kubeconfig, context, namespace) reads. Sends nothing.
   */
  @Override
  public void validateTarget() {
    JobRendering.checkTarget(deployer.options(), deployer.kindName());
  }

  /**
   * False only on a cluster that runs the build context directly (the local cluster), where
   * nothing is built or pushed.
   */
  @Override
  public boolean needsImage() {
    return !deployer.options().cluster().flatMap(ClusterBackends::of)
        .map(ClusterBackend::runsContextDirectly).orElse(false);
  }

  /** The store of a cluster that runs images without a registry ({@code Clusters.podman()}). */
  @Override
  public Optional<dev.fairing4j.core.LocalImageStore> localImageStore() {
    return deployer.options().cluster().flatMap(ClusterBackends::of)
        .flatMap(ClusterBackend::imageStore);
  }

  /** The manifests {@link #deploy} would create, as YAML, with secrets redacted. */
  @Override
  public String render(BuildContext context, Optional<ImageRef> image) {
    return plan(context).render(image);
  }

  @Override
  public Deployer withPullCredentials(RegistryCredentials credentials) {
    return new JobSteps(deployer.pullCredentials(credentials));
  }

  /**
   * The job renamed, with the variant's arguments after the deployer's, its environment in
   * every replica and its labels on every object.
   */
  @Override
  public Optional<Deployer> variant(JobVariant variant) {
    JobOptions options = deployer.options();
    List<String> args = new ArrayList<>(options.args());
    args.addAll(variant.args());
    JobOptions varied = options.withName(variant.name()).withArgs(args);
    for (Map.Entry<String, String> env : variant.env().entrySet()) {
      varied = varied.withEnv(env.getKey(), env.getValue());
    }
    for (Map.Entry<String, String> label : variant.labels().entrySet()) {
      varied = varied.withLabel(label.getKey(), label.getValue());
    }
    return Optional.of(new JobSteps(deployer.withOptions(varied)));
  }

  /** The job of that name in the deployer's namespace (else the cluster's) on its cluster. */
  @Override
  public Optional<TrainingJob> attach(String name) {
    JobOptions options = deployer.options();
    JobFinder directory = options.cluster().flatMap(ClusterBackends::of)
        .filter(JobFinder.Provider.class::isInstance)
        .map(backend -> ((JobFinder.Provider) backend).jobFinder())
        .orElseThrow(() -> InvalidInputException.of("cluster", "cannot look up "
            + deployer.kindName() + " " + name + " on " + options.cluster()
                .map(Cluster::describe).orElse("no cluster"),
            "run it on one of the SDK's clusters: .on(Clusters.local()) or"
                + " .on(Clusters.kubernetes())"));
    return directory.attach(options.namespace().orElseGet(directory::defaultNamespace), name);
  }

  /** Renders the job and submits it to the cluster chosen with {@code on(cluster)}. */
  @Override
  public TrainingJob deploy(BuildContext context, Optional<ImageRef> image,
      ProgressListener progress) {
    return plan(context).deploy(image, progress);
  }

  /** Equal when the deployers are: the same settings give the same steps. */
  @Override
  public boolean equals(Object other) {
    return other instanceof JobSteps that && deployer.equals(that.deployer);
  }

  @Override
  public int hashCode() {
    return deployer.hashCode();
  }

  /** The deployer's own description, so logs and failures name the job as before. */
  @Override
  public String toString() {
    return deployer.toString();
  }
}

package dev.fairing4j.examples;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.serving.ServingDeployer;
import dev.fairing4j.deployer.storage.StorageObject;
import java.util.List;
import java.util.Optional;

/**
 * One seed scenario as a runnable example: what goes into the image, how the job is deployed,
 * and what the example does around the run. {@link Examples} adds the rest (cluster, namespace
 * override, image builder, progress, following the job), so each example only says what is
 * particular to its scenario.
 */
public interface Example {
  /** The name {@code scripts/example.sh} knows it by, e.g. {@code gloo-demo}. */
  String name();

  /** One line saying what the example shows. */
  String summary();

  /** The base image when {@code --base} is not given; default the PyTorch runtime. */
  default String baseImage() {
    return ExampleOptions.DEFAULT_BASE;
  }

  /** Where the code comes from. */
  Preprocessor preprocessor(ExampleOptions options, Optional<Cluster> cluster);

  /**
   * The deployer, without {@code on(..)}: {@link Examples} adds the cluster. {@code cluster} is
   * empty for a dry run without {@code --kubeconfig}.
   */
  JobDeployer<?> deployer(ExampleOptions options, Optional<Cluster> cluster);

  /** The local cluster this example needs (e.g. GPU requests ignored); default unchanged. */
  default LocalCluster local(LocalCluster cluster, ExampleOptions options, ExampleOutput out) {
    return cluster;
  }

  /**
   * The PersistentVolumes and claims the job mounts: created (idempotently) before the job on a
   * Kubernetes cluster and shown by a dry run; the local cluster backs claims with directories,
   * so it needs none. Default none.
   */
  default List<StorageObject> storage(ExampleOptions options) {
    return List.of();
  }

  /** Work before submission on {@code cluster}, e.g. data put on a claim; default none. */
  default void beforeRun(ExampleOptions options, Cluster cluster, ExampleOutput out) {}

  /** Whether every replica's log is streamed while the job runs; default yes. */
  default boolean followLogs() {
    return true;
  }

  /** What the example does once the job has ended; default nothing. */
  default void afterRun(TrainingJob job, JobStatus end, boolean succeeded, Cluster cluster,
      ExampleOutput out) {}

  /**
   * What the example serves once its job succeeded: the predictor and a serving deployer
   * (without {@code on(..)}: {@link Examples} adds the cluster and the namespace override);
   * empty for an example that only trains. The endpoint and then the job are deleted after
   * {@link #afterServe}.
   */
  default Optional<Serving> serving(ExampleOptions options) {
    return Optional.empty();
  }

  /**
   * What the example does with its endpoint once every replica is ready, before the endpoint is
   * deleted; {@code job} is the training job that made the model. Returns whether it went well.
   */
  default boolean afterServe(ExampleOptions options, TrainingJob job, Endpoint endpoint,
      ExampleOutput out) {
    return true;
  }

  /**
   * A served model: its predictor and the deployer that serves it.
   *
   * @param predictor the predictor's preprocessor, e.g. {@code FashionMnist.predictor()}
   * @param deployer the serving deployer, without a cluster
   */
  record Serving(Preprocessor predictor, ServingDeployer deployer) {}

  /**
   * The message for a failure before the job started; default the exception's own message, which
   * carries its hint.
   */
  default String explain(FairingException failure, Cluster cluster) {
    return failure.getMessage();
  }
}

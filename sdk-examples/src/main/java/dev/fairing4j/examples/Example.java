package dev.fairing4j.examples;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Cluster;
import dev.fairing4j.deployer.JobDeployer;
import dev.fairing4j.deployer.local.LocalCluster;
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
   * The message for a failure before the job started; default the exception's own message, which
   * carries its hint.
   */
  default String explain(FairingException failure, Cluster cluster) {
    return failure.getMessage();
  }
}

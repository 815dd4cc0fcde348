package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.deployer.job.Cluster;
import java.util.Optional;

/**
 * Steps that know the cluster they submit to: the SDK's job deployers' steps, which a pipeline
 * holds as a plain {@link dev.fairing4j.core.Deployer}. What an experiment run by another
 * controller (Katib, the Trainer) asks to reach the same cluster and to know what it runs.
 */
public interface ClusterBound {
  /** The cluster chosen with {@code on(..)}, if any. */
  Optional<Cluster> cluster();

  /** The namespace set on the deployer, if any (else the cluster's applies). */
  Optional<String> namespace();

  /** What its job is, in words: {@code PyTorchJob}, {@code TrainJob}, {@code a batch Job}. */
  String kindName();
}

package dev.fairing4j.deployer.job;

import java.util.Locale;

/**
 * A role within a distributed training job: the keys of a Kubeflow job's replica map. Pods are
 * named {@code <job>-<lower-case type>-<index>}, e.g. {@code mnist-worker-1}.
 */
public enum ReplicaType {
  /** PyTorchJob's rank-0 replica; always exactly one. */
  MASTER("Master"),
  /** A PyTorchJob or TFJob worker. */
  WORKER("Worker"),
  /** TFJob's coordinating worker (checkpoints, summaries); at most one. */
  CHIEF("Chief"),
  /** A TFJob parameter server: holds variables, needs no GPU unless asked for explicitly. */
  PS("PS"),
  /** A TFJob evaluator, outside the training cluster; at most one. */
  EVALUATOR("Evaluator");

  private final String specName;

  ReplicaType(String specName) {
    this.specName = specName;
  }

  /** The key in the job's replica map, e.g. {@code Master} or {@code PS}. */
  public String specName() {
    return specName;
  }

  /** The lower-case form used in pod names and labels, e.g. {@code ps}. */
  public String podName() {
    return specName.toLowerCase(Locale.ROOT);
  }

  @Override
  public String toString() {
    return specName;
  }
}

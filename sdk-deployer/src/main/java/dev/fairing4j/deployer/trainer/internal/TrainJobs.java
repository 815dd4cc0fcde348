package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.deployer.trainer.TrainingRuntime;
import java.util.List;

/**
 * The names Kubeflow Trainer v2 and JobSet use (CONTRACT.md (b)): the API, the replicated jobs
 * and containers of the shipped runtimes, and the labels the pods carry.
 */
public final class TrainJobs {
  /** The API group. */
  public static final String GROUP = "trainer.kubeflow.org";
  /** The TrainJob's apiVersion. */
  public static final String API_VERSION = GROUP + "/v1alpha1";
  /** The kind. */
  public static final String KIND = "TrainJob";
  /** The runtime kind a TrainJob names by default: cluster-wide. */
  public static final String CLUSTER_RUNTIME = TrainingRuntime.CLUSTER_WIDE;
  /** The namespaced runtime kind, usable from its own namespace only. */
  public static final String NAMESPACED_RUNTIME = TrainingRuntime.NAMESPACED;
  /** The runtime the deployer uses unless told otherwise. */
  public static final String DEFAULT_RUNTIME = "torch-distributed";
  /** The replicated job (and its container) that runs the trainer in the shipped runtimes. */
  public static final String NODE = "node";
  /** The MPI runtimes' launcher job. */
  public static final String LAUNCHER = "launcher";
  /** The dataset initializer's replicated job and container. */
  public static final String DATASET_INITIALIZER = "dataset-initializer";
  /** The model initializer's replicated job and container. */
  public static final String MODEL_INITIALIZER = "model-initializer";
  /** The controller that reconciles a TrainJob unless {@code managedBy} says otherwise. */
  public static final String TRAINER_CONTROLLER = "trainer.kubeflow.org/trainjob-controller";
  /** The other value {@code managedBy} may take: MultiKueue dispatches the job. */
  public static final String MULTIKUEUE = "kueue.x-k8s.io/multikueue";
  /** The values the CRD allows for {@code managedBy}. */
  public static final List<String> MANAGED_BY = List.of(TRAINER_CONTROLLER, MULTIKUEUE);
  /** Who fairing4j's runtime patch says made it (a domain-prefixed path, as the webhook wants). */
  public static final String PATCH_MANAGER = "fairing4j.dev/deployer";
  /** The JobSet the controller creates has the TrainJob's name; its pods carry this label. */
  public static final String JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";
  /** The replicated job a pod belongs to ({@code node}, {@code dataset-initializer}...). */
  public static final String REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";
  /** The pod's index in an Indexed Job: its node rank. */
  public static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
  /** The torch plugin's rendezvous port. */
  public static final int MASTER_PORT = 29500;
  /** The suffix the Job controller appends to a pod name: {@code -} and 5 random characters. */
  public static final int POD_SUFFIX = 6;
  /** The longest name a pod (a DNS label) may have. */
  public static final int MAX_POD_NAME = 63;

  private TrainJobs() {}

  /** The Job the JobSet controller creates for {@code replicatedJob}: {@code <job>-<rjob>-0}. */
  public static String jobName(String trainJob, String replicatedJob) {
    return trainJob + "-" + replicatedJob + "-0";
  }

  /**
   * The stable part of the name of pod {@code index} of {@code replicatedJob}:
   * {@code <job>-<rjob>-0-<index>} (the Job controller adds {@code -xxxxx}); also the pod's
   * hostname, resolvable as {@code <hostname>.<job>} through the JobSet's headless Service.
   */
  public static String podHostname(String trainJob, String replicatedJob, int index) {
    return jobName(trainJob, replicatedJob) + "-" + index;
  }
}

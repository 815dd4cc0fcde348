package dev.fairing4j.deployer.tuning;

/**
 * Who proposes and runs an experiment's trials.
 */
public enum TuningBackend {
  /**
   * The default: Trainer's OptimizationJob ({@link #OPTIMIZATION_JOB}) when the pipeline runs a
   * TrainJob on a Kubernetes cluster that serves the OptimizationJob CRD and the experiment says
   * nothing the CRD cannot (a goal, a failed-trial budget, early stopping, one of Katib's
   * algorithms, more than 100 trials, parameters as plain variables); otherwise this JVM
   * ({@link #CLIENT}). {@link Experiment#dryRun()} says which, and why, in its first line.
   */
  AUTO,
  /**
   * This JVM: the SDK proposes the trials ({@link Algorithm#random(long)},
   * {@link Algorithm#grid()}) and runs each as an ordinary job of the pipeline's deployer, on any
   * cluster the deployer names, local ones included. No Katib needed.
   */
  CLIENT,
  /**
   * Katib ({@code kubeflow.org/v1beta1} Experiment): the cluster proposes the trials, with any of
   * Katib's algorithms, and runs them without this JVM.
   */
  KATIB,
  /**
   * Kubeflow Trainer's OptimizationJob ({@code trainer.kubeflow.org/v1alpha1}, newer than
   * Trainer v2.3): the Trainer runs each trial as a TrainJob, random or grid, handing it the
   * values as {@code KUBEFLOW_TRAINER_OPT_<NAME>}, and ranks the trials by the metrics the
   * script reports to the Trainer (its TrainJobStatus API), not by its log.
   */
  OPTIMIZATION_JOB
}

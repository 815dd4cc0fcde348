package dev.fairing4j.deployer;

import dev.fairing4j.deployer.batch.BatchJobDeployer;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.kubeflow.TfJobDeployer;
import dev.fairing4j.deployer.kubeflow.XGBoostJobDeployer;
import dev.fairing4j.deployer.serving.InferenceServiceDeployer;
import dev.fairing4j.deployer.serving.ServingDeployer;
import dev.fairing4j.deployer.trainer.TrainJobDeployer;

/**
 * Where deployers come from: one factory per job kind (Kubeflow's PyTorchJob, TFJob and
 * XGBoostJob, Kubeflow Trainer v2's TrainJob, a plain batch Job), and one for serving a model. Each returns an immutable value whose
 * fluent calls return new values.
 *
 * <pre>{@code
 * Deployers.pyTorchJob("mnist").workers(2)
 *     .namespace("kubeflow")
 *     .mutate(Mutators.resources("2", "4Gi"))
 *     .mutate(Mutators.gpus(1))
 *     .mutate(Mutators.pvc("training-data", "/mnist_data"))
 *     .on(Clusters.kubernetes())
 * }</pre>
 */
public final class Deployers {
  private Deployers() {}

  /**
   * A Kubeflow PyTorchJob with a Master and no Workers yet.
   *
   * @param name a DNS-1035 label; short enough for the operator's pod names
   */
  public static PyTorchJobDeployer pyTorchJob(String name) {
    return PyTorchJobDeployer.named(name);
  }

  /** A Kubeflow TFJob with one Worker. */
  public static TfJobDeployer tfJob(String name) {
    return TfJobDeployer.named(name);
  }

  /**
   * A Kubeflow XGBoostJob with a Master (rank 0, where the script starts XGBoost's tracker) and
   * no Workers yet; {@code workers(n)} adds them.
   *
   * @param name a DNS-1035 label; short enough for the operator's pod names
   */
  public static XGBoostJobDeployer xgboostJob(String name) {
    return XGBoostJobDeployer.named(name);
  }

  /**
   * A Kubeflow Trainer v2 TrainJob on the ClusterTrainingRuntime {@code torch-distributed} with
   * one node; {@code numNodes(n)}, {@code runtime(..)} and the rest change that.
   *
   * @param name a DNS-1035 label, short enough for the JobSet's pod names
   *     ({@code <name>-node-0-<rank>-xxxxx}: at most 48 characters for up to 10 nodes)
   */
  public static TrainJobDeployer trainJob(String name) {
    return TrainJobDeployer.named(name);
  }

  /**
   * A plain {@code batch/v1} Job with one pod; {@code replicas(n)} makes it a distributed Indexed
   * Job that needs no operator.
   */
  public static BatchJobDeployer batchJob(String name) {
    return BatchJobDeployer.named(name);
  }

  /**
   * An endpoint serving a model: a Deployment running the predictor's model server and a Service
   * in front of it, created by {@code Pipeline.serve()}.
   *
   * @param name a DNS-1035 label: the Deployment's and the Service's name
   */
  public static ServingDeployer serving(String name) {
    return ServingDeployer.named(name);
  }

  /**
   * A KServe InferenceService: the pipeline's predictor image as a custom container, or with
   * {@code storedModel(format, storageUri)} a model KServe's runtime serves; created by
   * {@code Pipeline.serve()} (or, for a stored model, its own {@code serve()}).
   *
   * @param name a DNS-1035 label; KServe's Service for it is {@code <name>-predictor}
   */
  public static InferenceServiceDeployer inferenceService(String name) {
    return InferenceServiceDeployer.named(name);
  }
}

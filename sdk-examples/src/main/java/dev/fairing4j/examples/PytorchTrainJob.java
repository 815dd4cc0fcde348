package dev.fairing4j.examples;

import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.trainer.TrainJobDeployer;
import java.util.Optional;

/**
 * Seed 004 ({@code pytorch-simple}) as a Kubeflow Trainer v2 TrainJob: TrainJob {@value #JOB} in
 * namespace {@value #NAMESPACE} on the ClusterTrainingRuntime {@value #RUNTIME}, 2 nodes of one
 * process each, the same {@code mnist_ddp.py} unchanged: the runtime's torch plugin gives each
 * node {@code PET_*} and the script runs under {@code torchrun}, which turns them into the
 * {@code RANK}/{@code WORLD_SIZE}/{@code MASTER_ADDR} the script reads.
 */
public final class PytorchTrainJob implements Example {
  /** The TrainJob's name. */
  public static final String JOB = "pytorch-simple";
  /** The namespace of the scenario; {@code --namespace} overrides it. */
  public static final String NAMESPACE = "kubeflow";
  /** The runtime it runs on. */
  public static final String RUNTIME = TrainJobDeployer.DEFAULT_RUNTIME;
  /** Training nodes. */
  public static final int NODES = 2;

  @Override
  public String name() {
    return "pytorch-trainjob";
  }

  @Override
  public String summary() {
    return "TrainJob " + JOB + " in " + NAMESPACE + " on " + RUNTIME + ", 2 nodes, FashionMNIST"
        + " DDP (Trainer v2)";
  }

  @Override
  public Preprocessor preprocessor(ExampleOptions options, Optional<Cluster> cluster) {
    return FashionMnist.script();
  }

  @Override
  public JobDeployer<?> deployer(ExampleOptions options, Optional<Cluster> cluster) {
    // The model is saved inside the container only: this scenario keeps nothing.
    FashionMnist settings = new FashionMnist(JOB, options.epochs(), options.samples(),
        options.samples(), 1);
    return FashionMnist.withDataClaim(Deployers.trainJob(JOB).namespace(NAMESPACE)
        .runtime(RUNTIME).numNodes(NODES)
        .args(settings.scriptArgs().toArray(String[]::new))
        .replaceExisting(), options);
  }
}

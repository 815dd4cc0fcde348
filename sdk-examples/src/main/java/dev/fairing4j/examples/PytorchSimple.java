package dev.fairing4j.examples;

import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import java.util.Optional;

/**
 * Seed 004, {@code pytorch-simple}: the PyTorchJob {@value #JOB} in namespace
 * {@value #NAMESPACE}, Master 1 + Worker 1, training FashionMNIST with a DistributedSampler for
 * {@code --epochs=1} (the bundled {@code mnist_ddp.py}); the logs stream while it runs.
 */
public final class PytorchSimple implements Example {
  /** The PyTorchJob's name. */
  public static final String JOB = "pytorch-simple";
  /** The namespace of the scenario; {@code --namespace} overrides it. */
  public static final String NAMESPACE = "kubeflow";

  @Override
  public String name() {
    return "pytorch-simple";
  }

  @Override
  public String summary() {
    return "PyTorchJob " + JOB + " in " + NAMESPACE + ", Master 1 + Worker 1, FashionMNIST DDP";
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
    return FashionMnist.withDataClaim(Deployers.pyTorchJob(JOB).namespace(NAMESPACE).workers(1)
        .args(settings.scriptArgs())
        .replaceExisting(), options);
  }
}

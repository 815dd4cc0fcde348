package dev.fairing4j.examples;

import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.local.LocalCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Seed 002, {@code gloo-demo}: the PyTorchJob {@value #JOB}, 1 Master + {@value #WORKERS}
 * Workers training on CPU with the gloo backend (4 ranks), optionally with a GPU limit
 * ({@code --gpus N}); at the end its status is printed like {@code kubectl describe}.
 */
public final class GlooDemo implements Example {
  /** The PyTorchJob's name, as in Kubeflow's gloo example. */
  public static final String JOB = "pytorch-dist-mnist-gloo";
  /** Workers beside the Master. */
  public static final int WORKERS = 3;

  @Override
  public String name() {
    return "gloo-demo";
  }

  @Override
  public String summary() {
    return "PyTorchJob " + JOB + ", 1 Master + " + WORKERS + " Workers on CPU, gloo backend";
  }

  @Override
  public Preprocessor preprocessor(ExampleOptions options, Optional<Cluster> cluster) {
    return FashionMnist.script();
  }

  @Override
  public JobDeployer<?> deployer(ExampleOptions options, Optional<Cluster> cluster) {
    FashionMnist settings = new FashionMnist(JOB, options.epochs(), options.samples(),
        options.samples(), WORKERS);
    List<String> args = new ArrayList<>(settings.scriptArgs());
    args.add("--backend=gloo");
    PyTorchJobDeployer deployer = FashionMnist.withDataClaim(
        Deployers.pyTorchJob(JOB).workers(WORKERS).args(args).replaceExisting(), options);
    int gpus = options.gpus().orElse(0);
    return gpus > 0 ? deployer.mutate(Mutators.gpus(gpus)) : deployer;
  }

  @Override
  public LocalCluster local(LocalCluster cluster, ExampleOptions options, ExampleOutput out) {
    if (options.gpus().orElse(0) > 0) {
      out.println("local cluster: the GPU limit stays in the manifest, but replicas run on the"
          + " CPU (LocalCluster.ignoreGpuRequests()); gloo needs no GPU");
      return cluster.ignoreGpuRequests();
    }
    return cluster;
  }
}

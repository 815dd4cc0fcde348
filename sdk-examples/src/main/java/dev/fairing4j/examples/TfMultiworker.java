package dev.fairing4j.examples;

import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.local.LocalCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Seed 003, {@code tf-multiworker}: the TFJob {@value #JOB}, Chief 1 + Worker 2 with GPU limits,
 * running a Keras {@code MultiWorkerMirroredStrategy} script that finds its peers through
 * {@code TF_CONFIG}; built and deployed through a pipeline with a PVC mutator (the model goes to
 * claim {@value #CLAIM} at {@value #MODEL_PATH}) and a resources mutator (cpu, memory, gpu).
 *
 * <p>TensorFlow is not installable on every machine: on the local cluster, where no interpreter
 * can import it, the run stops before starting anything and says so; {@code --dry-run} always
 * works.
 */
public final class TfMultiworker implements Example {
  /** The TFJob's name. */
  public static final String JOB = "tf-multiworker-mnist";
  /** The claim the Chief saves the model to. */
  public static final String CLAIM = "tf-models-claim";
  /** Where the claim is mounted. */
  public static final String MODEL_PATH = "/train/models";
  /** The base image when {@code --base} is not given: TensorFlow with GPU support. */
  public static final String BASE = "tensorflow/tensorflow:2.16.1-gpu";
  /** The first words of the message when TensorFlow is missing here. */
  public static final String NEEDS_TENSORFLOW = "tf-multiworker needs TensorFlow";

  @Override
  public String name() {
    return "tf-multiworker";
  }

  @Override
  public String summary() {
    return "TFJob " + JOB + ", Chief 1 + Worker 2 with GPUs, Keras MultiWorkerMirroredStrategy";
  }

  @Override
  public String baseImage() {
    return BASE;
  }

  @Override
  public Preprocessor preprocessor(ExampleOptions options, Optional<Cluster> cluster) {
    return Preprocessors.python(ExampleScripts.extract("tf_multiworker_mnist.py"));
  }

  @Override
  public JobDeployer<?> deployer(ExampleOptions options, Optional<Cluster> cluster) {
    List<String> args = new ArrayList<>(List.of("--epochs=" + options.epochs(),
        "--model-dir=" + MODEL_PATH));
    if (options.samples() > 0) {
      args.add("--samples=" + options.samples());
    }
    return FashionMnist.withDataClaim(Deployers.tfJob(JOB).chief(1).workers(2)
        .args(args)
        .mutate(Mutators.pvc(CLAIM, MODEL_PATH))
        .mutate(Mutators.resources("2", "4Gi"))
        .mutate(Mutators.gpus(options.gpus().orElse(1)))
        .replaceExisting(), options);
  }

  @Override
  public LocalCluster local(LocalCluster cluster, ExampleOptions options, ExampleOutput out) {
    // Without this, replicas asking for GPUs this machine lacks stay Pending (Unschedulable).
    return options.gpus().orElse(1) > 0 ? cluster.ignoreGpuRequests() : cluster;
  }

  @Override
  public String explain(FairingException failure, Cluster cluster) {
    String message = String.valueOf(failure.getMessage());
    if (cluster instanceof LocalCluster
        && message.toLowerCase(Locale.ROOT).contains("tensorflow")) {
      return NEEDS_TENSORFLOW + ": no Python interpreter on this machine can import tensorflow,"
          + " so the local cluster cannot run the TFJob. Install it for your python (pip install"
          + " tensorflow), or print the manifests with --dry-run, or run it on a cluster with"
          + " --kubeconfig FILE --registry REPO (the image is built on " + BASE + ").\n"
          + "local cluster said: " + message;
    }
    return message;
  }
}

package dev.fairing4j.examples;

import dev.fairing4j.builder.PredictorPreprocessor;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.builder.PythonPreprocessor;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.serving.ServingDeployer;
import dev.fairing4j.deployer.tuning.Algorithm;
import dev.fairing4j.deployer.tuning.Experiment;
import dev.fairing4j.deployer.tuning.Objective;
import dev.fairing4j.deployer.tuning.Search;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The README's main job: FashionMNIST data-parallel training (the seed's network: conv 20 /
 * conv 50 / fc 500 / fc 10, SGD lr 0.01 momentum 0.5, batch 64, gloo, DistributedSampler) as a
 * PyTorchJob of one Master and {@code workers} Workers, saving {@code mnist_cnn.pt} to the claim
 * {@value #MODELS_CLAIM} mounted at {@value #MODELS_PATH}. The same pipeline runs on
 * {@code Clusters.local()} or a real cluster; only {@code on(..)} (and a builder) change.
 *
 * @param jobName the PyTorchJob's name
 * @param epochs training epochs
 * @param samples train on the first N samples, 0 for all 60,000
 * @param testSamples evaluate on the first N test samples, 0 for all 10,000
 * @param workers Worker replicas beside the Master
 */
public record FashionMnist(String jobName, int epochs, int samples, int testSamples, int workers) {
  /** The claim the model is saved to, as in the seed scenario. */
  public static final String MODELS_CLAIM = "traindb-models-claim";
  /** Where the claim is mounted in every replica. */
  public static final String MODELS_PATH = "/opt/mnist/models";

  /**
   * Where the training scripts read FashionMNIST unless told otherwise: Debian's
   * {@code dataset-fashion-mnist} puts it there, and {@code --data-claim} mounts a claim there.
   */
  public static final String DATA_DIR = "/usr/share/datasets/fashion-mnist";

  /** The bundled training script every PyTorch example runs. */
  public static final String SCRIPT = "mnist_ddp.py";

  /** The bundled training script as a preprocessor: {@code python mnist_ddp.py}. */
  public static PythonPreprocessor script() {
    return Preprocessors.python(ExampleScripts.extract(SCRIPT));
  }

  /** The predictor that serves the trained model: {@code mnist_predictor.py}. */
  public static final String PREDICTOR = "mnist_predictor.py";

  /**
   * The predictor of the model this training saves: {@value #PREDICTOR}, which imports the
   * network from the training script beside it and loads {@code mnist_cnn.pt} from
   * {@value #MODELS_PATH} (mount {@value #MODELS_CLAIM} there). Instances are 28x28 images of
   * pixel values 0-255; predictions are classes 0-9.
   */
  public static PredictorPreprocessor predictor() {
    Path dir = ExampleScripts.extractTogether(PREDICTOR, SCRIPT);
    return Preprocessors.predictor(dir.resolve(PREDICTOR)).files(Path.of(SCRIPT))
        .className("MnistModel").modelName("mnist");
  }

  /**
   * The endpoint that serves the trained model: {@code name}, the models claim mounted where
   * {@link #predictor()} loads it from, replacing an earlier one of the same name.
   */
  public static ServingDeployer servingDeployer(String name) {
    return Deployers.serving(name).mutate(Mutators.pvc(MODELS_CLAIM, MODELS_PATH))
        .replaceExisting();
  }

  /** The demo's defaults: one epoch over the full data set, one Worker. */
  public static FashionMnist defaults() {
    return new FashionMnist("fashion-mnist", 1, 0, 0, 1);
  }

  /** The training script's command-line arguments for these settings. */
  public List<String> scriptArgs() {
    List<String> args = new ArrayList<>(List.of("--epochs=" + epochs, "--model-dir=" + MODELS_PATH));
    if (samples > 0) {
      args.add("--samples=" + samples);
    }
    if (testSamples > 0) {
      args.add("--test-samples=" + testSamples);
    }
    return args;
  }

  /**
   * {@code deployer} with the claim of {@code --data-claim} mounted read-only at
   * {@value #DATA_DIR}, where the scripts read the data set; unchanged without the option. Pods
   * on a cluster have no internet and their image no data set: a claim brings it.
   */
  static <D extends JobDeployer<D>> D withDataClaim(D deployer, ExampleOptions options) {
    return options.dataClaim()
        .map(claim -> deployer.mutate(Mutators.pvc(claim, DATA_DIR).readOnly()))
        .orElse(deployer);
  }

  /** The deployer: Master + Workers, the models claim mounted, arguments per run. */
  public PyTorchJobDeployer deployer(Cluster cluster) {
    return Deployers.pyTorchJob(jobName).workers(workers)
        .args(scriptArgs().toArray(String[]::new))
        .mutate(Mutators.pvc(MODELS_CLAIM, MODELS_PATH))
        .replaceExisting()
        .on(cluster);
  }

  /** The whole pipeline for {@code cluster}; add {@code .builder(..)} for a real cluster. */
  public Pipeline pipeline(Cluster cluster) {
    return Fairing.pipeline()
        .preprocessor(script())
        .deployer(deployer(cluster));
  }

  /**
   * Seed 004's search over this training on {@code cluster}, each trial this PyTorchJob without
   * the models claim (see {@link #trialArgs()}); the settings of {@link #search}. Set the number
   * of trials and how many run at once on the result.
   */
  public Experiment experiment(String name, Cluster cluster) {
    Pipeline trial = Fairing.pipeline().preprocessor(script())
        .deployer(Deployers.pyTorchJob(jobName).workers(workers)
            .args(trialArgs().toArray(String[]::new)).on(cluster));
    return search(name, trial);
  }

  /**
   * The script's arguments for a trial: {@link #scriptArgs()} saving the model to the trial's
   * own {@code /tmp}, since trials running at once on one claim would overwrite one another's.
   */
  public List<String> trialArgs() {
    List<String> args = new ArrayList<>(scriptArgs());
    args.replaceAll(arg -> arg.startsWith("--model-dir=") ? "--model-dir=/tmp/model" : arg);
    return args;
  }

  /**
   * Seed 004's search over the job {@code trial} runs: the learning rate log-uniform in
   * [0.001, 0.1] and the momentum uniform in [0.1, 0.9], maximizing the test accuracy the script
   * prints, random search with a fixed seed.
   */
  public static Experiment search(String name, Pipeline trial) {
    return Experiment.of(name, trial)
        .parameter("lr", Search.logUniform(0.001, 0.1))
        .parameter("momentum", Search.uniform(0.1, 0.9))
        .objective(Objective.maximize("accuracy"))
        .algorithm(Algorithm.random(4));
  }

  /** The settings as the demo's header shows them: 0 samples reads "all". */
  @Override
  public String toString() {
    return "FashionMnist[job=" + jobName + ", epochs=" + epochs + ", samples="
        + (samples == 0 ? "all 60,000" : String.valueOf(samples)) + ", testSamples="
        + (testSamples == 0 ? "all 10,000" : String.valueOf(testSamples)) + ", workers=" + workers
        + "]";
  }
}

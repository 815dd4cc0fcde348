package dev.fairing4j.examples;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.storage.StorageObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Seed 000 to the end, {@code traindb-serve}: {@link TraindbMnist}'s PyTorchJob trains and saves
 * {@code mnist_cnn.pt} on {@value FashionMnist#MODELS_CLAIM}; then {@code mnist_predictor.py}
 * serves that model from the same claim as the endpoint {@value #ENDPOINT}
 * ({@code Deployers.serving}: a Deployment and a Service, or a local process), the test images
 * the training evaluated are classified through {@code endpoint.predict(..)}, and the served
 * accuracy is printed beside the one the training printed. Endpoint and job are deleted at the
 * end; the model stays on the claim.
 */
public final class TraindbServe implements Example {
  /** The endpoint's name. */
  public static final String ENDPOINT = "traindb-predictor";
  // Images per predict request: a request stays a few MB of JSON.
  private static final int BATCH = 500;

  private final TraindbMnist training = new TraindbMnist();

  @Override
  public String name() {
    return "traindb-serve";
  }

  @Override
  public String summary() {
    return "traindb-mnist, then mnist_cnn.pt served from " + FashionMnist.MODELS_CLAIM
        + " by endpoint " + ENDPOINT + " and the test images classified through it";
  }

  @Override
  public Preprocessor preprocessor(ExampleOptions options, Optional<Cluster> cluster) {
    return training.preprocessor(options, cluster);
  }

  @Override
  public JobDeployer<?> deployer(ExampleOptions options, Optional<Cluster> cluster) {
    return training.deployer(options, cluster);
  }

  @Override
  public List<StorageObject> storage(ExampleOptions options) {
    return training.storage(options);
  }

  @Override
  public boolean followLogs() {
    return false;
  }

  @Override
  public void afterRun(TrainingJob job, JobStatus end, boolean succeeded, Cluster cluster,
      ExampleOutput out) {
    trainedAccuracy(job).ifPresent(a -> out.println("the training printed accuracy=" + a));
  }

  @Override
  public Optional<Serving> serving(ExampleOptions options) {
    return Optional.of(new Serving(FashionMnist.predictor(),
        FashionMnist.servingDeployer(ENDPOINT)));
  }

  @Override
  public boolean afterServe(ExampleOptions options, TrainingJob job, Endpoint endpoint,
      ExampleOutput out) {
    Path data = Path.of(FashionMnist.DATA_DIR);
    if (!Files.isRegularFile(data.resolve(FashionMnistTestSet.IMAGES))) {
      out.error("no FashionMNIST test set in " + data + " to classify (apt-get install"
          + " dataset-fashion-mnist); the endpoint served, but nothing was checked");
      return false;
    }
    // The images the training evaluated: its --test-samples, all 10,000 without one.
    int count = options.samples() > 0 ? options.samples() : 10_000;
    FashionMnistTestSet test = FashionMnistTestSet.read(data, count);
    List<Object> predictions = new ArrayList<>();
    for (int from = 0; from < count; from += BATCH) {
      predictions.addAll(endpoint.predict(test.images().subList(from,
          Math.min(count, from + BATCH))));
    }
    double served = test.accuracy(predictions);
    out.println("");
    out.println(String.format("served accuracy=%.4f on %d test images through %s",
        served, count, endpoint.url()));
    Optional<Double> trained = trainedAccuracy(job);
    trained.ifPresent(t -> out.println(String.format("trained accuracy=%.4f (difference"
        + " %.4f)", t, Math.abs(served - t))));
    return true;
  }

  // The Master's last accuracy= line: the accuracy on the test images.
  private static Optional<Double> trainedAccuracy(TrainingJob job) {
    return job.logs().snapshot().stream().filter(l -> l.replica().equals("master-0"))
        .map(LogLine::text).filter(l -> l.startsWith("accuracy="))
        .map(l -> Double.parseDouble(l.substring("accuracy=".length())))
        .reduce((first, last) -> last);
  }
}

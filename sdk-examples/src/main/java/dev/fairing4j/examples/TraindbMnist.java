package dev.fairing4j.examples;

import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.storage.StorageObject;
import dev.fairing4j.deployer.storage.Volumes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Seed 000, {@code traindb-mnist}: the PyTorchJob {@value #JOB} (Master 1 + Worker 1, restart
 * policy OnFailure, one epoch) mounting the claim {@value FashionMnist#MODELS_CLAIM} at
 * {@value FashionMnist#MODELS_PATH}, where the Master saves {@code mnist_cnn.pt}. The job is
 * monitored (phase changes only) until it succeeds; then the logs are shown and the job and its
 * pods deleted, as the scenario does with kubectl.
 */
public final class TraindbMnist implements Example {
  /** The PyTorchJob's name in the seed scenario. */
  public static final String JOB = "traindb-training-mnist";
  /** The hostPath PersistentVolume the claim binds to. */
  public static final String VOLUME = "traindb-models-volume";
  /** Where that volume lives on the node. */
  public static final String VOLUME_HOST_PATH = "/mnt/traindb/models";

  @Override
  public String name() {
    return "traindb-mnist";
  }

  @Override
  public String summary() {
    return "PyTorchJob " + JOB + " saving mnist_cnn.pt to claim " + FashionMnist.MODELS_CLAIM
        + "; monitor, logs, delete";
  }

  @Override
  public Preprocessor preprocessor(ExampleOptions options, Optional<Cluster> cluster) {
    return FashionMnist.script();
  }

  @Override
  public JobDeployer<?> deployer(ExampleOptions options, Optional<Cluster> cluster) {
    FashionMnist settings = new FashionMnist(JOB, options.epochs(), options.samples(),
        options.samples(), 1);
    return FashionMnist.withDataClaim(Deployers.pyTorchJob(JOB).workers(1)
        .restartPolicy(RestartPolicy.ON_FAILURE)
        .args(settings.scriptArgs())
        .mutate(Mutators.pvc(FashionMnist.MODELS_CLAIM, FashionMnist.MODELS_PATH))
        .replaceExisting(), options);
  }

  /** The seed's storage: a hostPath volume and a claim that binds to it by label. */
  @Override
  public List<StorageObject> storage(ExampleOptions options) {
    Map<String, String> labels = Map.of("type", "local", "name", VOLUME);
    return List.of(
        Volumes.hostPathPersistentVolume(VOLUME, VOLUME_HOST_PATH, "10Gi",
            List.of("ReadWriteMany"), labels),
        Volumes.claim(FashionMnist.MODELS_CLAIM, "3Gi", labels, "")
            .withAccessModes("ReadWriteMany"));
  }

  // The scenario watches the job, not the training: logs come once it has ended.
  @Override
  public boolean followLogs() {
    return false;
  }

  @Override
  public void afterRun(TrainingJob job, JobStatus end, boolean succeeded, Cluster cluster,
      ExampleOutput out) {
    out.println("");
    out.println("logs of " + job.name() + ":");
    for (LogLine line : job.logs().snapshot()) {
      out.println(line.toString());
    }
    if (cluster instanceof LocalCluster local) {
      Path model = local.claimDir(FashionMnist.MODELS_CLAIM).resolve("mnist_cnn.pt");
      out.println("");
      out.println(Files.isRegularFile(model)
          ? "model saved to " + model + " (claim " + FashionMnist.MODELS_CLAIM + ")"
          : "no model at " + model);
    }
    // The model stays on the claim; the pods have done their work.
    job.delete();
    out.println("deleted " + job.kind() + " " + job.name() + " and its pods");
  }
}

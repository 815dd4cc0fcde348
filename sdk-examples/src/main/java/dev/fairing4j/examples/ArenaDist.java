package dev.fairing4j.examples;

import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.monitor.TensorBoard;
import dev.fairing4j.deployer.monitor.TensorBoardInstance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Seed 001, {@code arena-dist}: the Arena-style distributed PyTorchJob {@value #JOB}, 3 replicas
 * (1 Master + 2 Workers) with 1 GPU each, the code synced from a git repository through the git
 * preprocessor, and the data on the claim {@value #DATA_CLAIM} mounted at {@value #DATA_PATH}.
 * The backend is nccl when the replicas have GPUs, gloo otherwise.
 *
 * <p>On the local cluster the GPU requests stay in the manifest but are not enforced
 * ({@link LocalCluster#ignoreGpuRequests()}), so the replicas train on the CPU with gloo; the
 * repository is one made from the bundled script ({@code --git-url} names another), and the
 * FashionMNIST files are copied onto the data claim first.
 */
public final class ArenaDist implements Example {
  /** The PyTorchJob's name, as in Arena's {@code --name=pytorch-dist}. */
  public static final String JOB = "pytorch-dist";
  /** The data claim. */
  public static final String DATA_CLAIM = "training-data";
  /** Where the data claim is mounted. */
  public static final String DATA_PATH = "/mnist_data";
  /** Workers beside the Master. */
  public static final int WORKERS = 2;
  /** Where on the data claim the Master writes TensorBoard logs. */
  public static final String LOG_DIR = "logs";
  /** The dataset files the script reads. */
  public static final List<String> DATA_FILES = List.of("train-images-idx3-ubyte.gz",
      "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz");
  /** Where Debian's {@code dataset-fashion-mnist} puts them. */
  public static final Path HOST_DATA = Path.of("/usr/share/datasets/fashion-mnist");

  @Override
  public String name() {
    return "arena-dist";
  }

  @Override
  public String summary() {
    return "PyTorchJob " + JOB + ", 1 Master + 2 Workers with 1 GPU each, code from git, data on"
        + " claim " + DATA_CLAIM;
  }

  @Override
  public Preprocessor preprocessor(ExampleOptions options, Optional<Cluster> cluster) {
    String url = options.gitUrl().orElseGet(() -> ExampleRepos.of(FashionMnist.SCRIPT));
    return Preprocessors.git(url).entry(FashionMnist.SCRIPT);
  }

  @Override
  public JobDeployer<?> deployer(ExampleOptions options, Optional<Cluster> cluster) {
    int gpus = options.gpus().orElse(1);
    // nccl needs GPUs; the local cluster runs Debian's CPU torch whatever the manifest asks for.
    boolean local = cluster.filter(LocalCluster.class::isInstance).isPresent();
    String backend = gpus > 0 && !local ? "nccl" : "gloo";
    List<String> args = new ArrayList<>(List.of("--epochs=" + options.epochs(),
        "--backend=" + backend, "--data-dir=" + DATA_PATH,
        "--model-dir=" + FashionMnist.MODELS_PATH, "--log-dir=" + DATA_PATH + "/" + LOG_DIR));
    if (options.samples() > 0) {
      args.add("--samples=" + options.samples());
      args.add("--test-samples=" + options.samples());
    }
    var deployer = Deployers.pyTorchJob(JOB).workers(WORKERS).args(args)
        .mutate(Mutators.pvc(DATA_CLAIM, DATA_PATH))
        .replaceExisting();
    return gpus > 0 ? deployer.mutate(Mutators.gpus(gpus)) : deployer;
  }

  @Override
  public LocalCluster local(LocalCluster cluster, ExampleOptions options, ExampleOutput out) {
    if (options.gpus().orElse(1) == 0) {
      return cluster;
    }
    out.println("local cluster: each replica asks for " + options.gpus().orElse(1) + " GPU(s);"
        + " LocalCluster.ignoreGpuRequests() runs them on the CPU, with the gloo backend");
    return cluster.ignoreGpuRequests();
  }

  /** On the local cluster, puts FashionMNIST on the data claim, as a data-loading job would. */
  @Override
  public void beforeRun(ExampleOptions options, Cluster cluster, ExampleOutput out) {
    if (!(cluster instanceof LocalCluster local)) {
      return;
    }
    Path claim = local.claimDir(DATA_CLAIM);
    try {
      Files.createDirectories(claim);
      for (String file : DATA_FILES) {
        Path target = claim.resolve(file);
        if (Files.isRegularFile(target)) {
          continue;
        }
        Path source = HOST_DATA.resolve(file);
        if (!Files.isRegularFile(source)) {
          throw FairingException.of("put data on claim " + DATA_CLAIM, source.toString(),
              "FashionMNIST is not installed", "apt-get install dataset-fashion-mnist", null);
        }
        Files.copy(source, target);
      }
    } catch (IOException e) {
      throw FairingException.of("put data on claim " + DATA_CLAIM, claim.toString(),
          e.toString(), "check that " + claim + " is writable", e);
    }
    out.println("data: FashionMNIST on claim " + DATA_CLAIM + " (" + claim + ")");
  }

  /**
   * The Arena session of the scenario, through {@link TrainingClient}: list, get, top job,
   * top node, the last 5 lines of every replica, and the log of one instance.
   */
  @Override
  public void afterRun(TrainingJob job, JobStatus end, boolean succeeded, Cluster cluster,
      ExampleOutput out) {
    if (cluster instanceof LocalCluster local) {
      out.println("");
      out.println("TensorBoard runs next to jobs on a Kubernetes cluster; here, with the"
          + " tensorboard package installed: tensorboard --logdir "
          + local.claimDir(DATA_CLAIM).resolve(LOG_DIR));
    } else {
      // Owned by the job: deleting the job removes TensorBoard too.
      TensorBoardInstance board = TensorBoard.forJob(job).logDir(DATA_CLAIM, LOG_DIR).start();
      out.println("");
      out.println("TensorBoard: " + board.portForwardCommand() + ", then " + board.localUrl());
    }
    TrainingClient client = TrainingClient.connect(cluster).inNamespace(job.namespace());
    out.println("");
    out.println("$ arena list");
    out.println(client.list().toString());
    out.println("");
    out.println("$ arena get " + job.name());
    out.println(client.get(job.name()).toString());
    out.println("");
    out.println("$ arena top job");
    out.println(client.topJobs().toString());
    out.println("");
    out.println("$ arena top node");
    out.println(client.topNodes().toString());
    out.println("");
    out.println("$ arena logs --tail 5 " + job.name());
    client.logs(job.name()).tail(5).snapshot().forEach(line -> out.println(line.toString()));
    out.println("");
    out.println("$ arena logs -i " + job.name() + "-worker-1 --tail 5 " + job.name());
    client.logs(job.name()).replica("worker-1").tail(5).snapshot()
        .forEach(line -> out.println(line.toString()));
  }
}

package dev.fairing4j.examples;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.JibImageBuilder;
import dev.fairing4j.core.ConsoleProgress;
import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.serving.ServingDeployer;
import dev.fairing4j.deployer.storage.ClusterStorage;
import dev.fairing4j.deployer.storage.StorageObject;
import dev.fairing4j.deployer.storage.Volumes;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code scripts/example.sh}: runs one of the seed scenarios by name on this machine
 * ({@code Clusters.local()}), prints its manifests ({@code --dry-run}), or builds, pushes and
 * submits it to a real cluster ({@code --kubeconfig FILE --registry REPO}).
 *
 * <pre>
 * usage: Examples &lt;name&gt; [--dry-run] [--kubeconfig FILE] [--registry REPO] [--namespace NS]
 *                 [--base IMAGE] [--epochs N] [--samples N] [--gpus N] [--git-url URL]
 *                 [--data-claim NAME] [--quiet]
 * </pre>
 */
public final class Examples {
  /** Every example, in the order of the seed scenarios. */
  public static final List<Example> ALL = List.of(new TraindbMnist(), new ArenaDist(),
      new GlooDemo(), new TfMultiworker(), new PytorchSimple(), new PytorchTrainJob(),
      new TraindbServe());

  /** Exit status of a run whose job (or submission) failed. */
  public static final int FAILED = 1;
  /** Exit status for a bad command line. */
  public static final int USAGE = 2;

  /** How long a run may take before the example gives up following it. */
  private static final Duration TIMEOUT = Duration.ofMinutes(60);
  /** How long a served model may take to load. */
  private static final Duration SERVE_TIMEOUT = Duration.ofMinutes(10);

  private Examples() {}

  /** Runs the command line; exits with 0 on success, 1 when the job failed, 2 on bad usage. */
  public static void main(String[] args) {
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
      System.out.println(ExampleOptions.USAGE + "\n\nexamples:\n" + list());
      System.exit(args.length == 0 ? USAGE : 0);
    }
    ExampleOptions options;
    try {
      options = ExampleOptions.parse(args);
      find(options.name());
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(USAGE);
      return;
    }
    System.exit(run(options, Clusters.local(), ExampleOutput.console()));
  }

  /** The example called {@code name}. */
  public static Example find(String name) {
    return ALL.stream().filter(e -> e.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no example '" + name + "'; the examples:\n"
            + list()));
  }

  /** One line per example: name and summary. */
  public static String list() {
    return ALL.stream().map(e -> String.format("  %-16s %s", e.name(), e.summary()))
        .collect(Collectors.joining("\n"));
  }

  /**
   * The example's pipeline for {@code cluster}: its preprocessor and deployer, the namespace
   * override, and a Jib builder whenever the job runs an image. With no cluster (a dry run without
   * {@code --kubeconfig}) the builder pushes to {@code --registry} or
   * {@code registry.example.com/fairing4j/<name>}, so the manifests are the same on every machine.
   */
  public static Pipeline pipeline(ExampleOptions options, Optional<Cluster> cluster) {
    Example example = find(options.name());
    JobDeployer<?> deployer = example.deployer(options, cluster);
    if (options.namespace().isPresent()) {
      deployer = deployer.namespace(options.namespace().get());
    }
    if (cluster.isPresent()) {
      deployer = deployer.on(declaring(cluster.get(), deployer.options().namespace()));
    }
    Pipeline pipeline = Fairing.pipeline()
        .preprocessor(example.preprocessor(options, cluster))
        .deployer(deployer);
    if (deployer.asDeployer().needsImage()) {
      pipeline = pipeline.builder(builder(options, example));
    }
    return pipeline;
  }

  /**
   * The pipeline that serves what the example trained, on {@code cluster}: the predictor, the
   * serving deployer with the namespace override, and a Jib builder when the endpoint runs an
   * image; empty for an example that only trains.
   */
  public static Optional<Pipeline> servingPipeline(ExampleOptions options,
      Optional<Cluster> cluster) {
    Example example = find(options.name());
    return example.serving(options).map(serving -> {
      ServingDeployer deployer = serving.deployer();
      if (options.namespace().isPresent()) {
        deployer = deployer.namespace(options.namespace().get());
      }
      if (cluster.isPresent()) {
        deployer = deployer.on(declaring(cluster.get(), deployer.options().namespace()));
      }
      Pipeline pipeline = Fairing.pipeline().preprocessor(serving.predictor())
          .deployer(deployer);
      return deployer.asDeployer().needsImage()
          ? pipeline.builder(builder(options, example)) : pipeline;
    });
  }

  /**
   * The local cluster with the example's namespace declared, as an example's README creates it
   * on a cluster ({@code kubectl create namespace kubeflow}); any other cluster as it is.
   */
  private static Cluster declaring(Cluster cluster, Optional<String> namespace) {
    if (cluster instanceof LocalCluster local && namespace.isPresent()) {
      java.util.Set<String> declared = new java.util.TreeSet<>(local.declaredNamespaces());
      declared.add(namespace.get());
      return local.namespaces(declared.toArray(String[]::new));
    }
    return cluster;
  }

  /** The manifests {@code options} would submit; builds, pushes and runs nothing. */
  public static String dryRun(ExampleOptions options) {
    StringBuilder yaml = new StringBuilder();
    find(options.name()).storage(options).forEach(object -> yaml.append(object.toYaml()));
    Optional<Cluster> cluster = options.kubeconfig()
        .map(file -> (Cluster) Clusters.kubernetes().kubeconfig(file));
    yaml.append(pipeline(options, cluster).dryRun());
    servingPipeline(options, cluster).ifPresent(serving -> yaml.append(serving.dryRun()));
    return yaml.toString();
  }

  /**
   * Runs {@code options}: prints the manifests for a dry run, else submits to the cluster of the
   * kubeconfig or to {@code local}, follows the job to its end and prints its status.
   *
   * @param local the local cluster to use when no kubeconfig is given (tests pass one with their
   *     own state and volume directories)
   * @return the exit status: 0 when the job succeeded (or the dry run printed), else 1
   */
  public static int run(ExampleOptions options, LocalCluster local, ExampleOutput out) {
    Example example = find(options.name());
    try {
      if (options.dryRun()) {
        out.out().print(dryRun(options));
        out.out().flush();
        return 0;
      }
      Cluster cluster = options.kubeconfig()
          .map(file -> (Cluster) Clusters.kubernetes().kubeconfig(file))
          .orElseGet(() -> example.local(local, options, out));
      return submitAndFollow(example, options, cluster, out);
    } catch (FairingException e) {
      out.error(e.getMessage());
      return FAILED;
    }
  }

  private static int submitAndFollow(Example example, ExampleOptions options, Cluster cluster,
      ExampleOutput out) {
    out.println("fairing4j example " + example.name() + ": " + example.summary());
    out.println("on " + cluster.describe());
    ProgressListener progress = options.quiet() ? ConsoleProgress.off() : ConsoleProgress.auto();
    TrainingJob job;
    try {
      ensureStorage(example, options, cluster, out);
      example.beforeRun(options, cluster, out);
      job = pipeline(options, Optional.of(cluster)).progress(progress).run();
    } catch (FairingException e) {
      out.error(example.explain(e, cluster));
      return FAILED;
    }
    boolean succeeded = false;
    LogStream logs = example.followLogs() ? job.logs().follow(out.out()::println) : null;
    try {
      job.waitForCompletion(TIMEOUT);
      succeeded = true;
      if (logs != null) {
        // The last lines (accuracy, saved model) may still be in flight.
        logs.awaitEnd(Duration.ofSeconds(10));
      }
    } catch (JobFailedException | JobTimeoutException e) {
      out.error(e.getMessage());
    } finally {
      if (logs != null) {
        logs.close();
      }
    }
    JobStatus end = job.status();
    out.println("");
    out.println(end.toTable());
    example.afterRun(job, end, succeeded, cluster, out);
    Optional<Pipeline> serving = servingPipeline(options, Optional.of(cluster));
    if (!succeeded || serving.isEmpty()) {
      return succeeded ? 0 : FAILED;
    }
    return serve(example, options, job, serving.get().progress(progress), out) ? 0 : FAILED;
  }

  // Serves the trained model and lets the example use it; then the endpoint and the job that
  // made the model are deleted (the model stays where the job saved it).
  private static boolean serve(Example example, ExampleOptions options, TrainingJob job,
      Pipeline serving, ExampleOutput out) {
    Endpoint endpoint = null;
    try {
      endpoint = serving.serve();
      out.println("");
      out.println(endpoint.waitUntilReady(SERVE_TIMEOUT).toTable());
      return example.afterServe(options, job, endpoint, out);
    } catch (FairingException e) {
      out.error(e.getMessage());
      return false;
    } finally {
      if (endpoint != null) {
        endpoint.delete();
        out.println("deleted " + endpoint.kind() + " " + endpoint.name() + " and its pods");
      }
      job.delete();
      out.println("deleted " + job.kind() + " " + job.name() + " and its pods");
    }
  }

  // Claims on the local cluster are directories; a real cluster needs the objects first.
  private static void ensureStorage(Example example, ExampleOptions options, Cluster cluster,
      ExampleOutput out) {
    List<StorageObject> objects = example.storage(options);
    if (objects.isEmpty() || cluster instanceof LocalCluster) {
      return;
    }
    ClusterStorage storage = Volumes.on(cluster);
    if (options.namespace().isPresent()) {
      storage = storage.inNamespace(options.namespace().get());
    }
    storage.ensure(objects.toArray(StorageObject[]::new))
        .forEach(ensured -> out.println(ensured.toString()));
  }

  private static JibImageBuilder builder(ExampleOptions options, Example example) {
    JibImageBuilder builder = Builders.jib(options.base().orElse(example.baseImage()))
        .pushTo(options.repository());
    // Credentials for a real registry come from where docker login put them.
    return options.registry().isPresent() ? builder.dockerConfig() : builder;
  }
}

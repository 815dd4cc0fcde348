package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.internal.ClusterBackend;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.trainer.RuntimePackages;
import dev.fairing4j.deployer.trainer.TrainJobDeployer;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a runtime's packages the way its TrainJobs would see them: a one-node TrainJob on the
 * runtime, running a short Python program with the runtime's {@code python3} (the runtime's
 * image on Kubernetes, this machine's interpreter and sandbox on the local cluster), which prints
 * each distribution and GPU on a marked line; the job is deleted whatever happens.
 */
public final class RuntimePackagesProbe {
  private static final String PACKAGE = "fairing4j-package ";
  private static final String GPU = "fairing4j-gpu ";
  private static final String DONE = "fairing4j-packages-done";

  /**
   * Runs with any Python 3 (pkg_resources before 3.8); the first distribution of a name on
   * sys.path is the one imports find, so later ones are left out.
   */
  static final String SCRIPT = String.join("\n",
      "import shutil, subprocess",
      "try:",
      "    import importlib.metadata as m",
      "    found = [(d.metadata['Name'], d.version) for d in m.distributions()]",
      "except ImportError:",
      "    import pkg_resources",
      "    found = [(d.project_name, d.version) for d in pkg_resources.working_set]",
      "seen = set()",
      "for name, version in found:",
      "    if name and name.lower() not in seen:",
      "        seen.add(name.lower())",
      "        print('" + PACKAGE + "' + name + ' ' + version, flush=True)",
      "smi = shutil.which('nvidia-smi')",
      "if smi:",
      "    out = subprocess.run([smi, '--query-gpu=index,name,memory.total,driver_version',",
      "        '--format=csv,noheader'], stdout=subprocess.PIPE, universal_newlines=True,",
      "        timeout=60).stdout",
      "    for line in out.splitlines():",
      "        if line.strip():",
      "            print('" + GPU + "' + line.strip(), flush=True)",
      "print('" + DONE + "', flush=True)");

  private RuntimePackagesProbe() {}

  /**
   * Runs the probe on {@code runtime} in {@code namespace} of {@code cluster}.
   *
   * @throws InvalidInputException naming {@code runtime} when the cluster runs images and the
   *     runtime names none (podman runs the pipeline's image, not a runtime's)
   * @throws dev.fairing4j.core.JobFailedException when the probe fails there (no python3)
   * @throws dev.fairing4j.core.JobTimeoutException when it does not end within {@code timeout}
   */
  public static RuntimePackages read(Cluster cluster, String namespace, TrainingRuntime runtime,
      Duration timeout) {
    ClusterBackend backend = ClusterBackends.of(cluster).orElseThrow(() ->
        InvalidInputException.of("cluster", cluster.describe() + " is not a cluster fairing4j"
            + " can submit to", "use a cluster from Clusters, e.g. Clusters.kubernetes()"));
    Optional<ImageRef> image = Optional.empty();
    if (!backend.runsContextDirectly()) {
      image = Optional.of(ImageRef.parse(runtime.image().orElseThrow(() ->
          InvalidInputException.of("runtime", runtime.name() + " has no image of its own on "
              + cluster.describe() + ", which runs the image a pipeline builds",
              "read the packages of the runtime on Clusters.local() (this machine's Python)"
                  + " or on Kubernetes, or run a job of your image that prints them"))));
    }
    TrainJobDeployer deployer = TrainJobDeployer.named(jobName(runtime)).uniqueName()
        .numNodes(1).torchrun(false).namespace(namespace).on(cluster);
    deployer = runtime.clusterWide() ? deployer.runtime(runtime.name())
        : deployer.namespacedRuntime(runtime.name());
    BuildContext context = BuildContext.empty()
        .withCommand(List.of("python3", "-c", SCRIPT));
    TrainingJob job = deployer.asDeployer().deploy(context, image, ProgressListener.NONE);
    RuntimeException failure = null;
    try {
      job.waitForCompletion(timeout);
      return parse(runtime, job.logs().snapshot());
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    } finally {
      try {
        job.delete();
      } catch (RuntimeException e) {
        if (failure == null) {
          throw e;
        }
        failure.addSuppressed(e);
      }
    }
  }

  /** {@code packages-<runtime>}, short enough for the Trainer's names and a unique suffix. */
  static String jobName(TrainingRuntime runtime) {
    String name = ("packages-" + runtime.name()).replaceAll("[^a-z0-9-]", "-");
    name = name.length() > 30 ? name.substring(0, 30) : name;
    return name.replaceAll("-+$", "");
  }

  /**
   * The probe's marked lines; anything else (a runtime's banner, warnings) is not its output.
   *
   * @throws FairingException when the end marker is missing: a list cut short is not the list
   */
  static RuntimePackages parse(TrainingRuntime runtime, List<LogLine> lines) {
    Map<String, String> packages = new LinkedHashMap<>();
    List<String> gpus = new ArrayList<>();
    boolean done = false;
    for (LogLine line : lines) {
      String text = line.text().strip();
      if (text.startsWith(PACKAGE)) {
        String[] nameAndVersion = text.substring(PACKAGE.length()).split(" ", 2);
        packages.putIfAbsent(nameAndVersion[0], nameAndVersion.length > 1
            ? nameAndVersion[1] : "");
      } else if (text.startsWith(GPU)) {
        gpus.add(text.substring(GPU.length()));
      } else if (text.equals(DONE)) {
        done = true;
      }
    }
    if (!done) {
      throw FairingException.of("read packages of runtime", runtime.name(), "the probe's log"
          + " ends before its last line (" + packages.size() + " packages read), so the list"
          + " would be incomplete", "run it again; if it repeats, run a TrainJob on the"
          + " runtime that prints 'python3 -m pip list' and read its log", null);
    }
    return new RuntimePackages(runtime, packages, gpus);
  }
}

package dev.fairing4j.examples;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.local.PodmanCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Run in a separate JVM by {@link PodmanClusterIT}: submits sleeping podman jobs, prints
 * {@code READY} once every replica of each runs, then waits to be killed.
 */
public final class PodmanChildJvm {
  private PodmanChildJvm() {}

  /** Args: state dir, volumes dir, script, base image, target repository, job names... */
  public static void main(String[] args) throws Exception {
    PodmanCluster cluster = Clusters.podman().stateDir(Path.of(args[0]))
        .volumesDir(Path.of(args[1]));
    List<TrainingJob> jobs = new ArrayList<>();
    for (int i = 5; i < args.length; i++) {
      jobs.add(Fairing.pipeline()
          .preprocessor(Preprocessors.python(Path.of(args[2])))
          .builder(Builders.jib(args[3]).pushTo(args[4]))
          .deployer(Deployers.pyTorchJob(args[i]).workers(1).args("--sleep")
              .mutate(Mutators.pvc("podclaim", "/opt/out")).on(cluster))
          .progress(ProgressListener.NONE)
          .run());
    }
    long end = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < end) {
      boolean all = jobs.stream().allMatch(job -> job.logs().snapshot().stream()
          .filter(l -> l.text().equals("sleeping")).count() == 2);
      if (all) {
        System.out.println("READY");
        System.out.flush();
        break;
      }
      Thread.sleep(50);
    }
    Thread.sleep(120_000);
  }
}

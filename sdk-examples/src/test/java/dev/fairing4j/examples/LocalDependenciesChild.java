package dev.fairing4j.examples;

import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Run in a JVM of its own by {@link LocalDependenciesIT}, whose environment (pip's {@code PIP_*}
 * variables) is the case, as a user behind a corporate mirror has it: runs {@code train.py} with
 * its {@code requirements.txt} on {@code Clusters.local()} and prints every log line and the end.
 */
public final class LocalDependenciesChild {
  private LocalDependenciesChild() {}

  /** Args: state dir, volumes dir, the directory with train.py and requirements.txt. */
  public static void main(String[] args) {
    Path dir = Path.of(args[2]);
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.python(dir.resolve("train.py"))
            .requirements(dir.resolve("requirements.txt")))
        .deployer(Deployers.pyTorchJob("deps").workers(1)
            .on(Clusters.local().stateDir(Path.of(args[0])).volumesDir(Path.of(args[1]))))
        .run();
    try {
      JobStatus end = job.waitForCompletion(Duration.ofSeconds(120));
      System.out.println("END " + end.phase().name());
    } catch (RuntimeException e) {
      System.out.println("END " + e.getMessage());
    }
    for (LogLine line : job.logs().snapshot()) {
      System.out.println("[" + line.replica() + "] " + line.text());
    }
    job.delete();
    System.exit(0);
  }
}

package dev.fairing4j.deploy.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deploy.internal.SubmitOptions;
import dev.fairing4j.deploy.local.internal.LocalTrainingJob;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Run in a separate JVM by {@link LocalClusterAttachIT}: submits a job whose replica sleeps (with
 * a child process of its own), prints {@code READY <pids>} once it runs, then waits to be killed.
 */
public final class ChildJvmJob {
  private ChildJvmJob() {}

  /** Args: state directory, volumes directory, job name. */
  public static void main(String[] args) throws Exception {
    LocalCluster cluster = LocalCluster.create().stateDir(Path.of(args[0]))
        .volumesDir(Path.of(args[1]));
    String script = String.join("\n",
        "import subprocess, time",
        "child = subprocess.Popen(['sleep', '120'])",
        "print('sleeping', flush=True)",
        "time.sleep(120)",
        "");
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/main.py"));
    LocalTrainingJob job = (LocalTrainingJob) cluster.submit(
        Manifests.pyTorchJob(args[2], 0, Manifests.container("pytorch",
            List.of("python", "/app/main.py"), Map.of(), 23456, "pytorchjob-port"), "Never",
            Map.of(), List.of(), null),
        context, SubmitOptions.DEFAULT, ProgressListener.NONE);
    long end = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < end) {
      List<Long> tree = job.processTree();
      boolean printed = job.logs().snapshot().stream().anyMatch(l -> l.text().equals("sleeping"));
      if (printed && tree.size() >= 4) {
        System.out.println("READY " + tree.stream().map(String::valueOf)
            .collect(Collectors.joining(",")));
        System.out.flush();
        break;
      }
      Thread.sleep(50);
    }
    Thread.sleep(120_000);
  }
}

package dev.fairing4j.deployer.local;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.LocalTrainingJob;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Run in a separate JVM by the local cluster's ITs: submits a job whose replica prints
 * {@code sleeping} (after its SIGINT disposition), starts a child process of its own, and prints
 * {@code after go} once {@code /data/go} exists on its claim ({@code <job>-data}); then it sleeps.
 * Prints {@code READY <pids>} once the replica runs, then waits to be killed.
 */
public final class ChildJvmJob {
  private ChildJvmJob() {}

  /** Args: state directory, volumes directory, job name, {@code tied} or {@code detached}. */
  public static void main(String[] args) throws Exception {
    LocalCluster cluster = LocalCluster.create().stateDir(Path.of(args[0]))
        .volumesDir(Path.of(args[1]));
    if (args[3].equals("tied")) {
      cluster = cluster.tiedToJvm();
    }
    String script = String.join("\n",
        "import os, signal, subprocess, time",
        "print('sigint-ignored', signal.getsignal(signal.SIGINT) == signal.SIG_IGN, flush=True)",
        "child = subprocess.Popen(['sleep', '120'])",
        "print('sleeping', flush=True)",
        "end = time.time() + 120",
        "while not os.path.exists('/data/go') and time.time() < end:",
        "    time.sleep(0.05)",
        "print('after go', flush=True)",
        "time.sleep(120)",
        "");
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(script))
        .withCommand(List.of("python", "/app/main.py"));
    Map<String, Object> container = Manifests.container("pytorch",
        List.of("python", "/app/main.py"), Map.of(), 23456, "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("data", "/data")));
    LocalTrainingJob job = (LocalTrainingJob) cluster.submit(
        Manifests.pyTorchJob(args[2], 0, container, "Never", Map.of(),
            List.of(Manifests.pvcVolume("data", args[2] + "-data")), null),
        context, SubmitOptions.DEFAULT, ProgressListener.NONE);
    long end = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < end) {
      List<Long> tree = job.processTree();
      boolean printed = job.logs().snapshot().stream().anyMatch(l -> l.text().equals("sleeping"));
      // The replica can print before its supervisor's first record says Running (a fresh
      // supervisor JVM under load): READY waits for both, as the parent checks both.
      boolean running = job.status().phase() == JobPhase.RUNNING;
      // bwrap, its pid-1 helper, python and sleep (and the supervisor process, if any)
      if (printed && running && tree.size() >= 4) {
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

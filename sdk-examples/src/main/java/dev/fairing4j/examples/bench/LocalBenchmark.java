package dev.fairing4j.examples.bench;

import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.local.LocalCluster;
import dev.fairing4j.examples.ExampleScripts;
import dev.fairing4j.examples.FashionMnist;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code scripts/bench.sh local}: what the local cluster costs over launching the same training by
 * hand. Runs one 2-rank DDP epoch on a FashionMNIST subset through {@code Clusters.local()} (the
 * front door: staging, sandboxes, operator environment, supervision, logs) and through the same
 * two Python processes started by a plain shell script, interleaved so machine noise hits both
 * alike, and prints the medians and their ratio as {@code bench.<name>=<value>} lines. The JVM's
 * own start is excluded: both are timed inside one warm JVM.
 *
 * <pre>usage: LocalBenchmark [rounds (default 5)] [samples (default 6000)]</pre>
 */
public final class LocalBenchmark {
  private static final double TARGET_RATIO = 1.05;

  private LocalBenchmark() {}

  /** Runs the benchmark and prints its figures. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int samples = args.length > 1 ? Integer.parseInt(args[1]) : 6000;
    Path work = Files.createTempDirectory("fairing4j-bench-local");
    Path script = ExampleScripts.extract("mnist_ddp.py");
    LocalCluster cluster = Clusters.local().stateDir(work.resolve("state"))
        .volumesDir(work.resolve("volumes"));
    FashionMnist settings = new FashionMnist("bench-local", 1, samples, 1000, 1);

    // One unmeasured run of each warms the page cache and the JIT alike.
    runLocal(cluster, settings);
    runPlain(script, settings, work.resolve("plain-models"));

    List<Long> local = new ArrayList<>();
    List<Long> plain = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      if (round % 2 == 0) {
        local.add(runLocal(cluster, settings));
        plain.add(runPlain(script, settings, work.resolve("plain-models")));
      } else {
        plain.add(runPlain(script, settings, work.resolve("plain-models")));
        local.add(runLocal(cluster, settings));
      }
      System.out.printf(Locale.ROOT, "round %d: local %d ms, plain %d ms%n", round + 1,
          local.get(round), plain.get(round));
    }
    long localMedian = median(local);
    long plainMedian = median(plain);
    double ratio = (double) localMedian / plainMedian;
    System.out.println("bench.local.rounds=" + rounds);
    System.out.println("bench.local.samples=" + samples);
    System.out.println("bench.local.cluster_median_ms=" + localMedian);
    System.out.println("bench.local.plain_median_ms=" + plainMedian);
    System.out.printf(Locale.ROOT, "bench.local.ratio=%.3f (target <= %.2f: %s)%n", ratio,
        TARGET_RATIO, ratio <= TARGET_RATIO ? "PASS" : "MISS");
  }

  private static long runLocal(LocalCluster cluster, FashionMnist settings) {
    long start = System.nanoTime();
    TrainingJob job = settings.pipeline(cluster).progress(ProgressListener.NONE).run();
    job.waitForCompletion(Duration.ofMinutes(30));
    long took = (System.nanoTime() - start) / 1_000_000;
    job.delete();
    return took;
  }

  private static long runPlain(Path script, FashionMnist settings, Path models)
      throws IOException, InterruptedException {
    String python = "/usr/bin/python3";
    String args = String.join(" ", settings.scriptArgs()).replace(
        "--model-dir=" + FashionMnist.MODELS_PATH, "--model-dir=" + models);
    String shell = "export MASTER_ADDR=127.0.0.1 MASTER_PORT=" + freePort()
        + " WORLD_SIZE=2 PYTHONUNBUFFERED=1\n"
        + "RANK=0 " + python + " -u " + script + " " + args + " > /dev/null 2>&1 &\n"
        + "RANK=1 " + python + " -u " + script + " " + args + " > /dev/null 2>&1 &\n"
        + "wait\n";
    long start = System.nanoTime();
    Process process = new ProcessBuilder("/bin/sh", "-c", shell).inheritIO().start();
    if (!process.waitFor(30, TimeUnit.MINUTES) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IllegalStateException("the plain shell run failed");
    }
    return (System.nanoTime() - start) / 1_000_000;
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }
}

package dev.fairing4j.examples.bench;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.FairingRuntime;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.cache.Caches;
import dev.fairing4j.core.cache.internal.CacheEntries;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import dev.fairing4j.deployer.local.LocalCluster;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * {@code scripts/bench.sh soak}: one JVM through many job lifecycles (submit, follow the logs to
 * their end, wait, metrics, delete), first on the local cluster, then against a real
 * kube-apiserver (v1.32, from {@code FAIRING4J_K8S}) with a thread playing the operator, as a
 * service that embeds the SDK for months goes through them.
 *
 * <pre>usage: SoakBenchmark [local lifecycles (default 2000)] [API lifecycles (default 500)]</pre>
 *
 * <p>At the start, after a tenth of the lifecycles (warm-up), halfway and at the end of each
 * phase it prints the heap after a full GC, the live threads, the open file descriptors, the
 * child processes and the bytes of the caches and of the local state directory. Targets: each
 * flat within 10% between warm-up and end (heap within 10% or 4 MiB, whichever is larger: a
 * few megabytes are the JIT's and class data's), no process of a job left (the one warm spare
 * supervisor the local cluster keeps is counted apart: it retires after five idle minutes; so
 * are the API server, etcd and kube-controller-manager of the API phase), and
 * the local state directory back to what it held at the start.
 */
public final class SoakBenchmark {
  private static final String SCRIPT = String.join("\n",
      "import logging, sys",
      "logging.basicConfig(stream=sys.stderr, level=logging.INFO)",
      "for epoch in range(1, 4):",
      "    print(f'epoch {epoch} loss={1.0 / epoch:.4f} accuracy={0.5 + epoch / 10:.2f}',"
          + " flush=True)",
      "logging.info('done')",
      "");
  private static final String IMAGE = "registry.example.com/soak/mnist@sha256:"
      + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  private static final long HEAP_SLACK = 4L << 20;

  private SoakBenchmark() {}

  /** Runs both phases and prints their figures. */
  public static void main(String[] args) throws Exception {
    int local = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int api = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    Path work = Files.createTempDirectory("fairing4j-soak");
    boolean pass = true;
    if (local > 0) {
      pass &= localPhase(work, local);
    }
    if (api > 0) {
      pass &= apiPhase(api);
    }
    System.out.println("bench.soak.result=" + (pass ? "PASS" : "MISS"));
    System.exit(0);
  }

  private static boolean localPhase(Path work, int count) throws Exception {
    Path state = work.resolve("state");
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(work.resolve("volumes"));
    BuildContext context = BuildContext.empty()
        .withFile("/app/train.py", ContextFile.ofText(SCRIPT))
        .withCommand(List.of("python", "-u", "/app/train.py"));
    List<Sample> samples = new ArrayList<>();
    samples.add(Sample.take("local", 0, state));
    FairingRuntime runtime = FairingRuntime.create();
    long start = System.nanoTime();
    int lines = 0;
    int metrics = 0;
    for (int i = 1; i <= count; i++) {
      String name = "soak-" + i;
      TrainingJob job = runtime.call(() -> Deployers.pyTorchJob(name).on(cluster).asDeployer()
          .deploy(context, Optional.empty(), ProgressListener.NONE));
      AtomicInteger followed = new AtomicInteger();
      try (LogStream stream = job.logs().follow(line -> followed.incrementAndGet())) {
        JobPhase phase = job.waitForCompletion(Duration.ofMinutes(2)).phase();
        if (phase != JobPhase.SUCCEEDED) {
          throw new IllegalStateException("soak-" + i + " ended " + phase + ": "
              + job.logs().snapshot());
        }
        stream.awaitEnd(Duration.ofSeconds(30));
      }
      lines += followed.get();
      JobMetrics m = job.metrics();
      metrics += m.names().isEmpty() ? 0 : 1;
      job.delete();
      if (sampled(i, count)) {
        samples.add(Sample.take("local", i, state));
      }
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf(Locale.ROOT, "bench.soak.local.lifecycles=%d ms_each=%.0f lines=%d"
        + " with_metrics=%d%n", count, millis / (double) count, lines, metrics);
    boolean closed = afterClose("local", runtime, state);
    return verdict("local", samples, count, lines >= count * 3L && metrics == count) && closed;
  }

  private static boolean apiPhase(int count) throws Exception {
    List<Sample> samples = new ArrayList<>();
    long start;
    int succeeded = 0;
    FairingRuntime runtime = FairingRuntime.create();
    boolean closed;
    try (KubeApiServer server = KubeApiServer.start().withControllers()) {
      String ns = server.createNamespace("soak");
      KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(server.kubeconfig(User.SDK,
          ns));
      String jobs = "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs";
      BuildContext context = BuildContext.empty().withCommand(List.of("python", "/app/train.py"));
      samples.add(Sample.take("api", 0, null));
      start = System.nanoTime();
      for (int i = 1; i <= count; i++) {
        String name = "soak-" + i;
        Thread operator = ApiBenchmark.play(server, jobs + "/" + name, Duration.ofMillis(50));
        TrainingJob job = runtime.call(() -> Deployers.pyTorchJob(name).workers(1).on(cluster)
            .asDeployer().deploy(context, Optional.of(ImageRef.parse(IMAGE)),
                ProgressListener.NONE));
        job.logs().snapshot();  // no kubelet here: no pods, no lines, but the calls are made
        succeeded += job.waitForCompletion(Duration.ofMinutes(1)).phase() == JobPhase.SUCCEEDED
            ? 1 : 0;
        operator.join();
        job.metrics();
        job.delete();
        if (sampled(i, count)) {
          samples.add(Sample.take("api", i, null));
        }
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      System.out.printf(Locale.ROOT, "bench.soak.api.lifecycles=%d ms_each=%.0f succeeded=%d%n",
          count, millis / (double) count, succeeded);
      closed = afterClose("api", runtime, null);
    }
    return verdict("api", samples, count, succeeded == count) && closed;
  }

  /**
   * Closes the phase's runtime and prints what is left of it: threads named after it or after
   * the SDK's work, and spare supervisor processes. Target: none of either.
   */
  private static boolean afterClose(String phase, FairingRuntime runtime, Path state)
      throws InterruptedException {
    String owner = runtime.toString().replaceAll("FairingRuntime\\((\\S+),.*", "$1");
    runtime.close();
    long threads = 0;
    long spares = 0;
    for (int i = 0; i < 100; i++) { // a closed pool's threads end after their current task
      threads = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
          .filter(t -> t.getName().endsWith("(" + owner + ")")
              || t.getName().startsWith("fairing4j-watch-")
              || t.getName().startsWith("fairing4j-logs-")
              || t.getName().startsWith("fairing4j-phases-"))
          .count();
      spares = ProcessHandle.current().children().filter(Sample::isWaitingSpare).count();
      if (threads == 0 && spares == 0) {
        break;
      }
      Thread.sleep(50);
    }
    Sample closed = Sample.take(phase, -1, state);
    boolean ok = threads == 0 && spares == 0;
    // What is alive after close, by name without numbers: the JVM's, the libraries', the
    // fixture's; none of the runtime's.
    String names = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .map(t -> t.getName().replaceAll("[0-9]+", "N"))
        .collect(java.util.stream.Collectors.groupingBy(n -> n, java.util.TreeMap::new,
            java.util.stream.Collectors.counting()))
        .entrySet().stream().map(e -> e.getValue() == 1 ? e.getKey()
            : e.getKey() + " x" + e.getValue())
        .collect(java.util.stream.Collectors.joining(", "));
    System.out.printf("bench.soak.%s.after_close=%s (runtime threads left %d, spare supervisors"
        + " left %d; live threads %d: %s; fds %d)%n", phase, pass(ok), threads, spares,
        closed.threads(), names, closed.fds());
    return ok;
  }

  /** Samples after warm-up (a tenth), halfway and at the end. */
  private static boolean sampled(int done, int count) {
    return done == Math.max(1, count / 10) || done == count / 2 || done == count;
  }

  private static boolean verdict(String phase, List<Sample> samples, int count, boolean ran) {
    Sample first = samples.get(0);
    Sample warm = samples.get(1);
    Sample end = samples.get(samples.size() - 1);
    boolean heap = end.heapBytes() <= Math.max(warm.heapBytes() * 1.10,
        warm.heapBytes() + HEAP_SLACK);
    boolean threads = end.threads() <= Math.ceil(warm.threads() * 1.10);
    boolean fds = end.fds() <= Math.ceil(warm.fds() * 1.10);
    boolean processes = end.jobProcesses() == 0;
    boolean disk = end.stateBytes() <= first.stateBytes();
    String prefix = "bench.soak." + phase + ".";
    System.out.printf("%sran=%s (every lifecycle succeeded, lines and metrics read)%n", prefix,
        ran ? "PASS" : "MISS");
    System.out.printf("%sheap_flat=%s (%d -> %d MiB after GC)%n", prefix, pass(heap),
        warm.heapBytes() >> 20, end.heapBytes() >> 20);
    System.out.printf("%sthreads_flat=%s (%d -> %d)%n", prefix, pass(threads), warm.threads(),
        end.threads());
    System.out.printf("%sfds_flat=%s (%d -> %d)%n", prefix, pass(fds), warm.fds(), end.fds());
    System.out.printf("%sprocesses_left=%d %s (children %d, of which the warm spare supervisor"
        + " and the API server's fixture %d)%n", prefix, end.jobProcesses(), pass(processes), end.children(),
        end.children() - end.jobProcesses());
    System.out.printf("%sstate_bytes=%d -> %d %s; cache_bytes=%d -> %d%n", prefix,
        first.stateBytes(), end.stateBytes(), pass(disk), first.cacheBytes(), end.cacheBytes());
    return ran && heap && threads && fds && processes && disk;
  }

  private static String pass(boolean ok) {
    return ok ? "PASS" : "MISS";
  }

  /** What the JVM holds at one point of the soak. */
  private record Sample(long heapBytes, int threads, long fds, long children, long jobProcesses,
      long cacheBytes, long stateBytes) {
    static Sample take(String phase, int done, Path state) {
      for (int i = 0; i < 3; i++) {
        System.gc();
      }
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      int threads = ManagementFactory.getThreadMXBean().getThreadCount();
      long fds;
      try (Stream<Path> open = Files.list(Path.of("/proc/self/fd"))) {
        fds = open.count();
      } catch (IOException e) {
        fds = -1;
      }
      List<ProcessHandle> children = ProcessHandle.current().descendants().toList();
      // the warm spare, and the API server, etcd and controllers of the API phase's fixture
      long spares = children.stream().filter(p -> isWaitingSpare(p) || isFixture(p)).count();
      long cache = Caches.user().list().totalBytes();
      long stateBytes = state == null ? 0 : CacheEntries.bytes(state);
      Sample sample = new Sample(heap, threads, fds, children.size(), children.size() - spares,
          cache, stateBytes);
      System.out.printf(Locale.ROOT, "bench.soak.%s.%s: heap_mib=%d threads=%d fds=%d"
          + " children=%d job_processes=%d cache_mib=%d state_kib=%d (%s)%n", phase,
          done < 0 ? "closed" : "at_" + done,
          heap >> 20, threads, fds, children.size(), sample.jobProcesses(), cache >> 20,
          stateBytes >> 10, Instant.now());
      return sample;
    }

    private static boolean isFixture(ProcessHandle process) {
      String command = process.info().command().orElse("");
      return command.endsWith("/etcd") || command.contains("/kube-");
    }

    /** The local cluster's warm spare: a supervisor JVM with no job yet. */
    private static boolean isWaitingSpare(ProcessHandle process) {
      String command = process.info().commandLine().orElse("");
      return command.contains("dev.fairing4j.deployer.local.internal.supervisor.SupervisorMain")
          && process.descendants().findAny().isEmpty();
    }
  }
}

package dev.fairing4j.examples.bench;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.TrainingClient;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@code scripts/bench.sh load}: what following many jobs and many log streams costs, against an
 * in-process list+watch API server ({@link BenchApiServer}) so no cluster is needed.
 *
 * <ul>
 *   <li>Load: {@code jobs} PyTorchJobs attached through one {@link TrainingClient} and waited for
 *       concurrently (one thread each), then finished in random order. Reports the watch
 *       requests (one shared watch, not one per job), API requests per job (attach, waits,
 *       shared list and watch) and the heap in use after a GC while all of them are followed.
 *   <li>Logs: one job of {@code replicas} replicas with {@code lines} timestamped lines each,
 *       followed as live streams; checks that every line arrives once and in order per replica
 *       and reports lines per second (target at least 100,000).
 * </ul>
 *
 * <p>Figures are printed as {@code bench.<name>=<value>} lines; a missed target prints MISS, it
 * never fails the run. An integrity problem (a lost, repeated or reordered line, a wait that did
 * not succeed) exits with status 1.
 *
 * <pre>usage: LoadBenchmark [jobs (default 200)] [replicas (default 8)] [lines (default 50000)]</pre>
 */
public final class LoadBenchmark {
  private static final double TARGET_LINES_PER_SECOND = 100_000;
  private static final Instant START = Instant.parse("2024-05-01T12:00:00Z");

  private LoadBenchmark() {}

  /** Runs both parts and prints their figures. */
  public static void main(String[] args) throws Exception {
    int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int replicas = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int lines = args.length > 2 ? Integer.parseInt(args[2]) : 50_000;
    Path work = Files.createTempDirectory("fairing4j-bench-load");
    boolean ok;
    try (BenchApiServer api = new BenchApiServer()) {
      TrainingClient client = TrainingClient.connect(Clusters.kubernetes()
          .kubeconfig(api.kubeconfig(work))).inNamespace(BenchApiServer.NS);
      ok = load(api, client, jobs);
      ok &= logs(api, client, replicas, lines);
    }
    System.exit(ok ? 0 : 1);
  }

  private static boolean load(BenchApiServer api, TrainingClient client, int jobs)
      throws Exception {
    for (int i = 0; i < jobs; i++) {
      api.putJob("load-" + i, "Running");
    }
    long before = api.requests();
    ExecutorService pool = Executors.newFixedThreadPool(jobs, r -> {
      Thread thread = new Thread(r, "bench-wait");
      thread.setDaemon(true);
      return thread;
    });
    List<CompletableFuture<JobStatus>> waits = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      TrainingJob job = client.attach("load-" + i);
      waits.add(CompletableFuture.supplyAsync(
          () -> job.waitForCompletion(Duration.ofMinutes(5)), pool));
    }
    // Every waiter has read its job and its pods once, and the shared watch is open.
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while ((api.podLists() < jobs || api.openWatches() == 0) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    double heapMb = heapUsedAfterGc();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(7));
    long start = System.nanoTime();
    order.forEach(i -> api.putJob("load-" + i, "Succeeded"));
    int succeeded = 0;
    for (CompletableFuture<JobStatus> wait : waits) {
      try {
        if (wait.get(5, TimeUnit.MINUTES).phase() == JobPhase.SUCCEEDED) {
          succeeded++;
        }
      } catch (Exception e) {
        System.err.println("a wait failed: " + e);
      }
    }
    double finishMs = (System.nanoTime() - start) / 1e6;
    pool.shutdownNow();
    long requests = api.requests() - before;
    print("load.jobs", String.valueOf(jobs));
    print("load.succeeded", String.valueOf(succeeded));
    print("load.watch_requests", String.valueOf(api.watchRequests()));
    print("load.api_requests_per_job", String.format(Locale.ROOT, "%.2f",
        requests / (double) jobs));
    print("load.heap_used_mb", String.format(Locale.ROOT, "%.1f", heapMb));
    print("load.all_done_after_last_change_ms", String.format(Locale.ROOT, "%.0f", finishMs));
    return succeeded == jobs;
  }

  private static boolean logs(BenchApiServer api, TrainingClient client, int replicas,
      int lines) throws Exception {
    List<String> names = new ArrayList<>();
    for (int r = 0; r < replicas; r++) {
      String type = r == 0 ? "master" : "worker";
      int index = r == 0 ? 0 : r - 1;
      String replica = type + "-" + index;
      names.add(replica);
      api.putPod("fanin", type, index, logBody(replica, lines));
    }
    api.putJob("fanin", "Succeeded");
    Map<String, Integer> next = new HashMap<>();
    names.forEach(n -> next.put(n, 0));
    long[] counts = new long[2]; // delivered, out of place
    TrainingJob job = client.attach("fanin");
    long start = System.nanoTime();
    // The stream hands lines on one at a time, so plain state is enough here.
    try (LogStream stream = job.logs().stream(line -> {
      counts[0]++;
      String text = line.text();
      int seq = Integer.parseInt(text.substring(text.indexOf("seq=") + 4,
          text.indexOf(' ', text.indexOf("seq="))));
      Integer expected = next.get(line.replica());
      if (expected == null || seq != expected) {
        counts[1]++;
      } else {
        next.put(line.replica(), seq + 1);
      }
    })) {
      stream.awaitEnd(Duration.ofMinutes(5));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double perSecond = counts[0] / seconds;
    long expected = (long) replicas * lines;
    boolean intact = counts[0] == expected && counts[1] == 0
        && next.values().stream().allMatch(n -> n == lines);
    print("logs.replicas", String.valueOf(replicas));
    print("logs.lines", String.valueOf(counts[0]));
    print("logs.intact", intact ? "PASS" : "FAIL (expected " + expected + " in order, got "
        + counts[0] + ", " + counts[1] + " out of place)");
    print("logs.lines_per_second", String.format(Locale.ROOT, "%.0f", perSecond));
    print("logs.lines_per_second_target", (perSecond >= TARGET_LINES_PER_SECOND ? "PASS"
        : "MISS") + " (>= " + (long) TARGET_LINES_PER_SECOND + ")");
    return intact;
  }

  /** {@code lines} kubelet-style lines, 100 microseconds apart, each with its sequence number. */
  private static byte[] logBody(String replica, int lines) {
    StringBuilder body = new StringBuilder(lines * 72);
    for (int i = 0; i < lines; i++) {
      body.append(START.plusNanos(i * 100_000L)).append(' ').append(replica).append(" seq=")
          .append(i).append(" loss=0.").append(1000 + i % 9000).append('\n');
    }
    return body.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static double heapUsedAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    return heap.getUsed() / (1024.0 * 1024.0);
  }

  private static void print(String name, String value) {
    System.out.println("bench." + name + "=" + value);
  }
}

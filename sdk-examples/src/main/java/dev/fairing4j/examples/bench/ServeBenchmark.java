package dev.fairing4j.examples.bench;

import dev.fairing4j.builder.internal.preprocess.ModelServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code scripts/bench.sh serve}: fairing4j's model server under load, as the image runs it
 * ({@code python fairing4j_model_server.py --predictor linear.py}, a torch predictor of one
 * {@code nn.Linear} layer, with Debian's {@code /usr/bin/python3}), driven over loopback from
 * this JVM. For 1, 10, 50 and 200 concurrent clients, each on its own keep-alive connection for
 * a fixed time: requests per second, p50 and p99 latency, errors and connection resets; then a
 * burst of 200 clients that each open a new connection at the same moment (three rounds), which
 * is what overflowed the listen queue of Python's {@code http.server}. The limit is the same
 * predictor called in-process (the same instances, the same Python): its time per call, and the
 * server's overhead per request over it at one client. The server's threads and resident memory
 * are sampled throughout. Prints {@code bench.serve.*} lines; targets (200 concurrent clients
 * with 0 resets, bounded threads) are printed beside the figures with PASS or MISS.
 *
 * <pre>usage: ServeBenchmark [seconds per level (default 5)]</pre>
 *
 * <p>{@code FAIRING4J_BENCH_SERVER=<file>} runs another {@code fairing4j_model_server.py} (an
 * older commit's) in the same harness, for a side-by-side.
 */
public final class ServeBenchmark {
  private static final int[] LEVELS = {1, 10, 50, 200};
  private static final int MAX_THREADS = 8;
  private static final String PYTHON = "/usr/bin/python3";
  private static final String PREDICTOR = """
      import torch

      class Linear:
          def load(self):
              torch.set_num_threads(1)
              self.net = torch.nn.Linear(4, 2)
              self.net.eval()

          def predict(self, instances):
              with torch.no_grad():
                  return self.net(torch.tensor(instances, dtype=torch.float32)).tolist()
      """;
  private static final String BODY = "{\"instances\": [[0.1, 0.2, 0.3, 0.4], [1, 2, 3, 4]]}";
  private static final String IN_PROCESS = """
      import importlib.util, json, sys, time
      spec = importlib.util.spec_from_file_location("linear", sys.argv[1])
      module = importlib.util.module_from_spec(spec)
      spec.loader.exec_module(module)
      model = module.Linear()
      model.load()
      instances = json.loads(sys.argv[2])["instances"]
      for _ in range(2000):
          model.predict(instances)
      n = 20000
      start = time.perf_counter()
      for _ in range(n):
          json.dumps({"predictions": model.predict(json.loads(sys.argv[2])["instances"])})
      print((time.perf_counter() - start) / n * 1e6)
      """;

  private ServeBenchmark() {}

  /** Runs the benchmark and prints its figures. */
  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    Path work = Files.createTempDirectory("fairing4j-bench-serve");
    // Another server file (an older commit's, say) runs in its place for a side-by-side.
    String other = System.getenv("FAIRING4J_BENCH_SERVER");
    Path server = Files.writeString(work.resolve(ModelServer.FILE_NAME), other == null
        ? ModelServer.script() : Files.readString(Path.of(other)));
    System.out.println("bench.serve.server=" + (other == null ? "bundled" : other));
    Path predictor = Files.writeString(work.resolve("linear.py"), PREDICTOR);
    Path inProcess = Files.writeString(work.resolve("in_process.py"), IN_PROCESS);

    double inProcessUs = Double.parseDouble(run(List.of(PYTHON, inProcess.toString(),
        predictor.toString(), BODY)).strip());
    System.out.printf(Locale.ROOT, "bench.serve.in_process_us_per_call=%.1f%n", inProcessUs);
    System.out.printf(Locale.ROOT, "bench.serve.in_process_calls_per_s=%.0f%n",
        1e6 / inProcessUs);

    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    ProcessBuilder builder = new ProcessBuilder(PYTHON, server.toString(), "--predictor",
        predictor.toString(), "--http_port", String.valueOf(port))
        .redirectErrorStream(true).redirectOutput(work.resolve("server.log").toFile());
    builder.environment().put("FAIRING4J_SERVER_HOST", "127.0.0.1");
    builder.environment().put("FAIRING4J_ACCESS_LOG", "0");
    Process process = builder.start();
    Sampler sampler = new Sampler(process.pid());
    try {
      awaitReady(port, process, work);
      sampler.start();
      double oneClientP50 = 0;
      long resets = 0;
      long errors = 0;
      for (int clients : LEVELS) {
        Level level = keepAlive(port, clients, Duration.ofSeconds(seconds));
        resets += level.resets();
        errors += level.errors();
        if (clients == 1) {
          oneClientP50 = level.p50Ms();
        }
        level.print("c" + clients);
      }
      Level burst = burst(port, 200, 3);
      burst.print("burst200");
      resets += burst.resets();
      errors += burst.errors();
      System.out.printf(Locale.ROOT, "bench.serve.overhead_per_request_ms=%.3f (server p50 at 1"
          + " client minus the in-process call)%n", oneClientP50 - inProcessUs / 1000);
      System.out.println("bench.serve.resets_total=" + resets + " (target 0: "
          + (resets == 0 ? "PASS" : "MISS") + ")");
      System.out.println("bench.serve.errors_total=" + errors + " (target 0: "
          + (errors == 0 ? "PASS" : "MISS") + ")");
      System.out.println("bench.serve.server_threads_max=" + sampler.threads.get()
          + " (target <= " + MAX_THREADS + ": " + (sampler.threads.get() <= MAX_THREADS
          ? "PASS" : "MISS") + ")");
      System.out.printf(Locale.ROOT, "bench.serve.server_rss_mb_max=%.1f%n",
          sampler.rssKb.get() / 1024.0);
    } finally {
      sampler.stop();
      process.destroy();
      process.waitFor(10, TimeUnit.SECONDS);
      process.destroyForcibly();
    }
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException(command + " failed: " + out);
    }
    return out;
  }

  private static void awaitReady(int port, Process process, Path work) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < end) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the server exited: "
            + Files.readString(work.resolve("server.log")));
      }
      try {
        if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
            + "/v1/models/linear")).build(), HttpResponse.BodyHandlers.discarding())
            .statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("not ready in 60 s");
  }

  /** One load level's outcome. */
  private record Level(int clients, long requests, long errors, long resets, double seconds,
      long[] latenciesNs) {
    double p50Ms() {
      return percentile(0.50);
    }

    double percentile(double p) {
      if (latenciesNs.length == 0) {
        return 0;
      }
      long[] sorted = latenciesNs.clone();
      Arrays.sort(sorted);
      return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))] / 1e6;
    }

    void print(String name) {
      System.out.printf(Locale.ROOT, "bench.serve.%s.requests_per_s=%.0f%n", name,
          requests / seconds);
      System.out.printf(Locale.ROOT, "bench.serve.%s.p50_ms=%.2f%n", name, percentile(0.50));
      System.out.printf(Locale.ROOT, "bench.serve.%s.p99_ms=%.2f%n", name, percentile(0.99));
      System.out.printf(Locale.ROOT, "bench.serve.%s.errors=%d%s%n", name, errors,
          errors > 0 && FIRST_ERROR.get() != null ? " (first: " + FIRST_ERROR.getAndSet(null)
              + ")" : "");
      System.out.printf(Locale.ROOT, "bench.serve.%s.resets=%d%n", name, resets);
    }
  }

  private static final byte[] KEEP_ALIVE = request(false);
  private static final byte[] CLOSE = request(true);

  private static byte[] request(boolean close) {
    byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
    return ("POST /v1/models/linear:predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type:"
        + " application/json\r\nContent-Length: " + body.length + "\r\n"
        + (close ? "Connection: close\r\n" : "") + "\r\n" + BODY)
        .getBytes(StandardCharsets.UTF_8);
  }

  /** {@code clients} connections, each sending one request after another for {@code time}. */
  private static Level keepAlive(int port, int clients, Duration time) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    CyclicBarrier start = new CyclicBarrier(clients);
    AtomicLong errors = new AtomicLong();
    AtomicLong resets = new AtomicLong();
    List<Future<long[]>> results = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      results.add(pool.submit(() -> {
        List<Long> latencies = new ArrayList<>();
        start.await();
        long end = System.nanoTime() + time.toNanos();
        Socket socket = null;
        try {
          while (System.nanoTime() < end) {
            long began = System.nanoTime();
            try {
              if (socket == null) {
                socket = connect(port);
              }
              int status = exchange(socket, KEEP_ALIVE);
              if (status != 200) {
                errors.incrementAndGet();
              }
              latencies.add(System.nanoTime() - began);
            } catch (IOException e) {
              count(e, errors, resets);
              close(socket);
              socket = null;
            }
          }
        } finally {
          close(socket);
        }
        return latencies.stream().mapToLong(Long::longValue).toArray();
      }));
    }
    long began = System.nanoTime();
    List<long[]> all = new ArrayList<>();
    for (Future<long[]> result : results) {
      all.add(result.get(time.toSeconds() + 60, TimeUnit.SECONDS));
    }
    double seconds = (System.nanoTime() - began) / 1e9;
    pool.shutdownNow();
    long[] latencies = all.stream().flatMapToLong(Arrays::stream).toArray();
    return new Level(clients, latencies.length, errors.get(), resets.get(), seconds,
        latencies);
  }

  /** {@code clients} new connections at the same moment, {@code rounds} times. */
  private static Level burst(int port, int clients, int rounds) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    CyclicBarrier together = new CyclicBarrier(clients);
    AtomicLong errors = new AtomicLong();
    AtomicLong resets = new AtomicLong();
    AtomicInteger done = new AtomicInteger();
    List<Future<long[]>> results = new ArrayList<>();
    long began = System.nanoTime();
    for (int c = 0; c < clients; c++) {
      results.add(pool.submit(() -> {
        long[] latencies = new long[rounds];
        for (int round = 0; round < rounds; round++) {
          together.await(60, TimeUnit.SECONDS);
          long start = System.nanoTime();
          try (Socket socket = connect(port)) {
            if (exchange(socket, CLOSE) != 200) {
              errors.incrementAndGet();
            }
            done.incrementAndGet();
          } catch (IOException e) {
            count(e, errors, resets);
          }
          latencies[round] = System.nanoTime() - start;
        }
        return latencies;
      }));
    }
    List<long[]> all = new ArrayList<>();
    for (Future<long[]> result : results) {
      all.add(result.get(120, TimeUnit.SECONDS));
    }
    double seconds = (System.nanoTime() - began) / 1e9;
    pool.shutdownNow();
    return new Level(clients, done.get(), errors.get(), resets.get(), seconds,
        all.stream().flatMapToLong(Arrays::stream).toArray());
  }

  private static Socket connect(int port) throws IOException {
    Socket socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    socket.setSoTimeout(30_000);
    return socket;
  }

  /** A reset (or refused, or cut) connection, or another failure: a timeout, say. */
  private static void count(IOException e, AtomicLong errors, AtomicLong resets) {
    String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    if (message.contains("reset") || message.contains("broken pipe")
        || message.contains("refused")) {
      resets.incrementAndGet();
    } else {
      errors.incrementAndGet();
      FIRST_ERROR.compareAndSet(null, e.toString());
    }
  }

  private static final java.util.concurrent.atomic.AtomicReference<String> FIRST_ERROR =
      new java.util.concurrent.atomic.AtomicReference<>();

  private static void close(Socket socket) {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing a connection that failed
      }
    }
  }

  /** Writes the request, reads one response (by its Content-Length); the status code. */
  private static int exchange(Socket socket, byte[] request) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(request);
    out.flush();
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    int previous = -1;
    int b;
    while ((b = in.read()) != -1) {
      head.append((char) b);
      if (b == '\n' && previous == '\r' && head.length() >= 4
          && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        break;
      }
      previous = b;
    }
    if (b == -1) {
      throw new IOException("connection reset: closed before a full answer");
    }
    String text = head.toString();
    int length = 0;
    for (String line : text.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    byte[] body = in.readNBytes(length);
    if (body.length != length) {
      throw new IOException("connection reset: body cut short");
    }
    return Integer.parseInt(text.substring(9, 12));
  }

  /** The server's thread count and resident memory, highest seen, read from /proc. */
  private static final class Sampler {
    final AtomicInteger threads = new AtomicInteger();
    final AtomicLong rssKb = new AtomicLong();
    private final long pid;
    private Thread thread;

    Sampler(long pid) {
      this.pid = pid;
    }

    void start() {
      thread = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid),
                "status"))) {
              if (line.startsWith("Threads:")) {
                threads.accumulateAndGet(Integer.parseInt(line.replaceAll("\\D", "")),
                    Math::max);
              } else if (line.startsWith("VmRSS:")) {
                rssKb.accumulateAndGet(Long.parseLong(line.replaceAll("\\D", "")), Math::max);
              }
            }
            Thread.sleep(100);
          } catch (IOException | NumberFormatException e) {
            return;
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "serve-bench-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    void stop() {
      if (thread != null) {
        thread.interrupt();
      }
    }
  }
}

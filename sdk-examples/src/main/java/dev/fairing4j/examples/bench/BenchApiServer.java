package dev.fairing4j.examples.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small stand-in for an API server, for the load benchmark: PyTorchJobs of one namespace in a
 * shared in-memory store, served as lists and as live watch streams (each change gets the next
 * resourceVersion and goes to every open watch), single job reads, one Master pod per job, and
 * container logs from bodies the benchmark sets. Built on the JDK's HTTP server so the examples
 * need no test library at run time. It counts requests so the benchmark can report them.
 */
final class BenchApiServer implements AutoCloseable {
  static final String NS = "bench";
  private static final String JOBS = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";
  private static final String MANAGED = "app.kubernetes.io/managed-by=fairing4j";

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "bench-api");
    thread.setDaemon(true);
    return thread;
  });
  private final Map<String, String> jobs = new LinkedHashMap<>();
  private final Set<BlockingQueue<String>> watches = ConcurrentHashMap.newKeySet();
  private final Map<String, String> pods = new ConcurrentHashMap<>();
  private final Map<String, byte[]> logs = new ConcurrentHashMap<>();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong watchRequests = new AtomicLong();
  private final AtomicLong podLists = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  private long revision = 100;

  BenchApiServer() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(threads); // watches hold their thread for as long as they are open
    server.createContext("/", this::handle);
    server.start();
  }

  /** Creates or replaces job {@code name} in {@code phase} (Running or Succeeded). */
  synchronized void putJob(String name, String phase) {
    String type = jobs.containsKey(name) ? "MODIFIED" : "ADDED";
    revision++;
    String object = job(name, revision, phase);
    jobs.put(name, object);
    String event = "{\"type\":\"" + type + "\",\"object\":" + object + "}\n";
    watches.forEach(q -> q.add(event));
  }

  /** Adds a finished pod of job {@code job} whose log is {@code log}. */
  void putPod(String job, String type, int index, byte[] log) {
    String name = job + "-" + type + "-" + index;
    pods.put(name, pod(job, type, index, "Succeeded"));
    logs.put(name, log);
  }

  long requests() {
    return requests.get();
  }

  long watchRequests() {
    return watchRequests.get();
  }

  int openWatches() {
    return watches.size();
  }

  long podLists() {
    return podLists.get();
  }

  private void handle(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    try (exchange) {
      String path = exchange.getRequestURI().getRawPath();
      Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
      if (path.equals(JOBS)) {
        if ("true".equals(query.get("watch"))) {
          watchRequests.incrementAndGet();
          watch(exchange, query);
        } else {
          send(exchange, 200, list(query));
        }
      } else if (path.startsWith(JOBS + "/")) {
        String object;
        synchronized (this) {
          object = jobs.get(path.substring(JOBS.length() + 1));
        }
        send(exchange, object == null ? 404 : 200, object == null ? notFound(path) : object);
      } else if (path.equals(PODS)) {
        podLists.incrementAndGet();
        String selector = query.getOrDefault("labelSelector", "");
        String prefix = "training.kubeflow.org/job-name=";
        List<String> items = new ArrayList<>();
        if (selector.startsWith(prefix)) {
          String job = selector.substring(prefix.length());
          pods.forEach((name, pod) -> {
            if (name.startsWith(job + "-")) {
              items.add(pod);
            }
          });
          if (items.isEmpty()) {
            items.add(pod(job, "master", 0, "Running"));
          }
        }
        send(exchange, 200, "{\"items\":[" + String.join(",", items) + "]}");
      } else if (path.startsWith(PODS + "/") && path.endsWith("/log")) {
        byte[] log = logs.get(path.substring(PODS.length() + 1, path.length() - 4));
        exchange.getResponseHeaders().add("Content-Type", "text/plain");
        exchange.sendResponseHeaders(200, log == null ? -1 : log.length);
        if (log != null) {
          exchange.getResponseBody().write(log);
        }
      } else if (path.startsWith(PODS + "/")) {
        String pod = pods.get(path.substring(PODS.length() + 1));
        send(exchange, pod == null ? 404 : 200, pod == null ? notFound(path) : pod);
      } else if (path.endsWith("/events")) {
        send(exchange, 200, "{\"items\":[]}");
      } else {
        send(exchange, 404, notFound(path));
      }
    }
  }

  private synchronized String list(Map<String, String> query) {
    String labels = query.get("labelSelector");
    List<String> items = labels == null || labels.equals(MANAGED)
        ? new ArrayList<>(jobs.values()) : List.of();
    return "{\"kind\":\"PyTorchJobList\",\"metadata\":{\"resourceVersion\":\"" + revision
        + "\"},\"items\":[" + String.join(",", items) + "]}";
  }

  /** Streams changes after the request's resourceVersion (the store keeps no history). */
  private void watch(HttpExchange exchange, Map<String, String> query) throws IOException {
    BlockingQueue<String> queue = new LinkedBlockingQueue<>();
    watches.add(queue);
    try {
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, 0); // chunked, as the API server streams a watch
      OutputStream body = exchange.getResponseBody();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(
          Long.parseLong(query.getOrDefault("timeoutSeconds", "300")));
      while (!closed.get() && System.nanoTime() < end) {
        String event = queue.poll(100, TimeUnit.MILLISECONDS);
        if (event != null) {
          body.write(event.getBytes(StandardCharsets.UTF_8));
          body.flush();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      watches.remove(queue);
    }
  }

  private static void send(HttpExchange exchange, int code, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> params = new HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        params.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq),
            StandardCharsets.UTF_8),
            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return params;
  }

  private static String notFound(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\""
        + name + " not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"" + name
        + "\"},\"code\":404}";
  }

  private static String condition(String type, String status) {
    return "{\"type\":\"" + type + "\",\"status\":\"" + status + "\",\"reason\":\"PyTorchJob"
        + type + "\",\"lastTransitionTime\":\"2024-05-01T12:00:00Z\"}";
  }

  private static String job(String name, long version, String phase) {
    String conditions = condition("Created", "True") + ","
        + (phase.equals("Succeeded") ? condition("Running", "False") + ","
            + condition("Succeeded", "True") : condition("Running", "True"));
    return "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"metadata\":{\"name\":\""
        + name + "\",\"namespace\":\"" + NS + "\",\"resourceVersion\":\"" + version + "\","
        + "\"labels\":{\"app.kubernetes.io/managed-by\":\"fairing4j\"}},\"spec\":{"
        + "\"pytorchReplicaSpecs\":{\"Master\":{\"replicas\":1},\"Worker\":{\"replicas\":7}}},"
        + "\"status\":{\"conditions\":[" + conditions + "]}}";
  }

  private static String pod(String job, String type, int index, String phase) {
    String state = phase.equals("Running") ? "{\"running\":{}}"
        : "{\"terminated\":{\"exitCode\":0}}";
    return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + job + "-"
        + type + "-" + index + "\",\"labels\":{\"training.kubeflow.org/job-name\":\"" + job
        + "\",\"training.kubeflow.org/replica-type\":\"" + type + "\","
        + "\"training.kubeflow.org/replica-index\":\"" + index + "\"},\"ownerReferences\":[{"
        + "\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"name\":\"" + job
        + "\",\"uid\":\"u\",\"controller\":true}]},\"spec\":{\"containers\":[{\"name\":"
        + "\"pytorch\",\"image\":\"bench\"}]},\"status\":{\"phase\":\"" + phase + "\","
        + "\"containerStatuses\":[{\"name\":\"pytorch\",\"containerID\":\"containerd://" + job
        + type + index + "\",\"restartCount\":0,\"state\":" + state + "}]}}";
  }

  /** A kubeconfig file in {@code dir} pointing at this server. */
  Path kubeconfig(Path dir) throws IOException {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, """
        apiVersion: v1
        kind: Config
        clusters:
          - name: bench
            cluster:
              server: http://127.0.0.1:%d
        users:
          - name: bench
            user:
              token: bench
        contexts:
          - name: bench
            context: {cluster: bench, user: bench, namespace: %s}
        current-context: bench
        """.formatted(server.getAddress().getPort(), NS));
    return file;
  }

  @Override
  public void close() {
    closed.set(true);
    server.stop(0);
    threads.shutdownNow();
  }
}

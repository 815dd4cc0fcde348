package dev.fairing4j.deploy.kubernetes;

import dev.fairing4j.core.testing.KubernetesApiFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockResponseBody;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okio.BufferedSink;

/**
 * A list+watch API server for one namespace's PyTorchJobs, answering from a shared in-memory
 * store the way a real API server does: every change gets the next resourceVersion and goes to
 * every open watch as an event; a watch from an old version first replays what it missed; a
 * version older than the last compaction gets 410 Gone. Lists and watches honour
 * {@code labelSelector} (one {@code key=value}) and {@code fieldSelector=metadata.name=..}.
 * Single job reads, pod lists (one Master pod per job) and events are answered too. Tests can
 * drop every open watch mid-event and expire old versions (an ERROR 410 on the open watches).
 *
 * <p>Watch bodies are written line by line as changes happen, then the connection is shut, as
 * client-java needs from a mockwebserver3 response.
 */
final class ListWatchApiServer implements AutoCloseable {
  static final String NS = "team";
  static final String JOBS = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs";
  private static final String PODS = "/api/v1/namespaces/" + NS + "/pods";
  private static final String EVENTS = "/api/v1/namespaces/" + NS + "/events";
  private static final Object DROP = new Object();
  private static final Object END = new Object();

  private final MockWebServer server = new MockWebServer();
  private final Map<String, String> objects = new LinkedHashMap<>();
  private final List<String[]> history = new ArrayList<>(); // {version, type, name, object}
  private final Set<BlockingQueue<Object>> open = ConcurrentHashMap.newKeySet();
  private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean refuseWatches;
  private long revision = 100;
  private long compacted = 0;

  ListWatchApiServer() {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        requests.add(request);
        return answer(request);
      }
    });
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates or replaces job {@code name} in {@code phase} (Running, Succeeded, Failed). */
  synchronized void put(String name, String phase) {
    boolean existed = objects.containsKey(name);
    revision++;
    String object = job(name, String.valueOf(revision), phase);
    objects.put(name, object);
    record(existed ? "MODIFIED" : "ADDED", name, object);
  }

  /** Deletes job {@code name}. */
  synchronized void delete(String name) {
    String object = objects.remove(name);
    if (object != null) {
      revision++;
      record("DELETED", name, object.replaceFirst("\"resourceVersion\":\"\\d+\"",
          "\"resourceVersion\":\"" + revision + "\""));
    }
  }

  private void record(String type, String name, String object) {
    String[] entry = {String.valueOf(revision), type, name, object};
    history.add(entry);
    String line = "{\"type\":\"" + type + "\",\"object\":" + object + "}";
    open.forEach(q -> q.add(new String[] {name, line}));
  }

  /** Answers every later watch with 400, as a proxy without watch support does. */
  void refuseWatches() {
    refuseWatches = true;
  }

  /** Breaks every open watch in the middle of an event, as a dropped connection does. */
  void dropWatches() {
    open.forEach(q -> q.add(DROP));
  }

  /**
   * Forgets the history so far, as etcd compaction does: open watches get an ERROR 410 event and
   * end, and a watch from an older version gets a 410 response.
   */
  synchronized void expire() {
    compacted = revision;
    String error = "{\"type\":\"ERROR\",\"object\":" + gone() + "}";
    open.forEach(q -> q.add(new String[] {"", error}));
    open.forEach(q -> q.add(END));
  }

  /** The requests received so far. */
  List<RecordedRequest> requests() {
    return List.copyOf(requests);
  }

  /** The watch requests received so far. */
  long watchRequests() {
    return requests.stream().filter(r -> "true".equals(r.getUrl().queryParameter("watch")))
        .count();
  }

  /** The list requests of the job collection received so far. */
  long listRequests() {
    return requests.stream().filter(r -> r.getUrl().encodedPath().equals(JOBS)
        && r.getUrl().queryParameter("watch") == null).count();
  }

  /** How many watches are open now. */
  int openWatches() {
    return open.size();
  }

  private MockResponse answer(RecordedRequest request) {
    String path = request.getUrl().encodedPath();
    if (!request.getMethod().equals("GET")) {
      return json(405, TestJobs.status(405, "MethodNotAllowed", "read only", "{}"));
    }
    if (path.equals(JOBS)) {
      return "true".equals(request.getUrl().queryParameter("watch")) ? watch(request)
          : list(request);
    }
    if (path.startsWith(JOBS + "/")) {
      String object;
      synchronized (this) {
        object = objects.get(path.substring(JOBS.length() + 1));
      }
      String name = path.substring(JOBS.length() + 1);
      return object != null ? json(200, object) : json(404, TestJobs.status(404, "NotFound",
          "pytorchjobs.kubeflow.org \"" + name + "\" not found", "{\"name\":\"" + name
              + "\",\"group\":\"kubeflow.org\",\"kind\":\"pytorchjobs\"}"));
    }
    if (path.equals(PODS)) {
      String selector = String.valueOf(request.getUrl().queryParameter("labelSelector"));
      String prefix = "training.kubeflow.org/job-name=";
      if (selector.startsWith(prefix)) {
        String name = selector.substring(prefix.length());
        return json(200, "{\"items\":[" + KubernetesJobHandleTest.operatorPod(name, "master", 0,
            "{\"phase\":\"Running\"}").replace("\n", "") + "]}");
      }
      return json(200, "{\"items\":[]}");
    }
    if (path.equals(EVENTS)) {
      return json(200, "{\"items\":[]}");
    }
    return json(404, TestJobs.status(404, "NotFound", "no " + path, "{}"));
  }

  private synchronized MockResponse list(RecordedRequest request) {
    List<String> items = new ArrayList<>();
    objects.forEach((name, object) -> {
      if (matches(request, name, object)) {
        items.add(object);
      }
    });
    return json(200, "{\"kind\":\"PyTorchJobList\",\"apiVersion\":\"kubeflow.org/v1\","
        + "\"metadata\":{\"resourceVersion\":\"" + revision + "\"},\"items\":["
        + String.join(",", items) + "]}");
  }

  private MockResponse watch(RecordedRequest request) {
    if (refuseWatches) {
      return json(400, TestJobs.status(400, "BadRequest", "watch is not supported", "{}"));
    }
    String from = request.getUrl().queryParameter("resourceVersion");
    long since = from == null || from.isEmpty() ? -1 : Long.parseLong(from);
    long timeoutSeconds = Long.parseLong(String.valueOf(
        request.getUrl().queryParameter("timeoutSeconds")));
    BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    synchronized (this) {
      if (since >= 0 && since < compacted) {
        return json(410, gone());
      }
      // Replay and subscribe atomically, so no change falls between the two.
      for (String[] entry : history) {
        if (Long.parseLong(entry[0]) > since) {
          queue.add(new String[] {entry[2],
              "{\"type\":\"" + entry[1] + "\",\"object\":" + entry[3] + "}"});
        }
      }
      open.add(queue);
    }
    MockResponseBody body = new MockResponseBody() {
      @Override
      public long getContentLength() {
        return -1;
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        try {
          while (!closed.get() && System.nanoTime() < end) {
            Object next = queue.poll(100, TimeUnit.MILLISECONDS);
            if (next == null) {
              continue;
            }
            if (next == END) {
              return;
            }
            if (next == DROP) {
              sink.writeString("{\"type\":\"MODIFIED\",\"object\":{\"apiVer",
                  StandardCharsets.UTF_8);
              sink.flush();
              return;
            }
            String[] event = (String[]) next;
            if (!event[0].isEmpty() && !matchesName(request, event[0])) {
              continue;
            }
            sink.writeString(event[1] + "\n", StandardCharsets.UTF_8);
            sink.flush();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          open.remove(queue);
        }
      }
    };
    return new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json")
        .body(body).onResponseEnd(SocketEffect.ShutdownConnection.INSTANCE).build();
  }

  /** Whether a job passes the request's selectors (all jobs carry the managed-by label). */
  private static boolean matches(RecordedRequest request, String name, String object) {
    String labels = request.getUrl().queryParameter("labelSelector");
    if (labels != null && !labels.equals("app.kubernetes.io/managed-by=fairing4j")) {
      return false;
    }
    return matchesName(request, name);
  }

  private static boolean matchesName(RecordedRequest request, String name) {
    String fields = request.getUrl().queryParameter("fieldSelector");
    return fields == null || fields.equals("metadata.name=" + name);
  }

  static String job(String name, String version, String phase) {
    String conditions = KubernetesJobHandleTest.condition("Created", "True", "Created", "")
        + switch (phase) {
          case "Running" -> "," + KubernetesJobHandleTest.condition("Running", "True",
              "PyTorchJobRunning", "");
          case "Succeeded" -> "," + KubernetesJobHandleTest.condition("Running", "False",
              "PyTorchJobRunning", "") + "," + KubernetesJobHandleTest.condition("Succeeded",
              "True", "PyTorchJobSucceeded", "done");
          default -> "," + KubernetesJobHandleTest.condition("Failed", "True",
              "PyTorchJobFailed", "1 Master replica(s) failed.");
        };
    return ("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"metadata\":{"
        + "\"name\":\"%s\",\"namespace\":\"" + NS + "\",\"resourceVersion\":\"%s\","
        + "\"labels\":{\"app.kubernetes.io/managed-by\":\"fairing4j\"}},"
        + "\"spec\":{\"pytorchReplicaSpecs\":{\"Master\":{\"replicas\":1}}},"
        + "\"status\":{\"conditions\":[%s]}}").formatted(name, version, conditions);
  }

  private static String gone() {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
        + "\"too old resource version\",\"reason\":\"Expired\",\"code\":410}";
  }

  static MockResponse json(int code, String body) {
    return WatchingApiServer.json(code, body);
  }

  /** A kubeconfig file pointing at this server. */
  Path kubeconfig(Path dir) {
    String url = server.url("/").toString().replaceAll("/$", "");
    Path file = dir.resolve("kubeconfig-" + server.getPort());
    return KubernetesApiFixture.writeKubeconfig(file, url, NS);
  }

  @Override
  public void close() {
    closed.set(true);
    server.close();
  }
}

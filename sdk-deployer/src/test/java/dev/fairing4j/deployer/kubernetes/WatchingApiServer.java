package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.testing.KubernetesApiFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;

/**
 * A scripted API server for live watches, which fabric8's CRUD mock cannot stream to client-java:
 * lists and watches answer from queues (the last list repeats; with no watch left, a watch stays
 * silent until the client gives up), other requests from a fallback function. Every response
 * ends by shutting the connection, or the client waits for more.
 */
final class WatchingApiServer implements AutoCloseable {
  /** What a silent watch sends after a delay longer than any test waits. */
  private static final long SILENCE_SECONDS = 30;

  private final MockWebServer server = new MockWebServer();
  private final Deque<String> lists = new ArrayDeque<>();
  private final Deque<MockResponse> watches = new ArrayDeque<>();
  private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();
  private final String collection;
  private final Function<RecordedRequest, MockResponse> other;

  /**
   * Serves lists and watches of {@code collection} (a path), everything else by {@code other}.
   */
  WatchingApiServer(String collection, Function<RecordedRequest, MockResponse> other) {
    this.collection = collection;
    this.other = other;
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

  private synchronized MockResponse answer(RecordedRequest request) {
    boolean ours = request.getMethod().equals("GET")
        && request.getUrl().encodedPath().equals(collection);
    if (!ours) {
      return other.apply(request);
    }
    if ("true".equals(request.getUrl().queryParameter("watch"))) {
      MockResponse watch = watches.poll();
      return watch != null ? watch : json(200, "{}").newBuilder()
          .bodyDelay(SILENCE_SECONDS, TimeUnit.SECONDS).build();
    }
    String list = lists.size() > 1 ? lists.poll() : lists.peek();
    return json(200, list == null ? "{\"items\":[]}" : list);
  }

  /** Queues the body of the next list. */
  synchronized WatchingApiServer list(String body) {
    lists.add(body);
    return this;
  }

  /** Queues a watch stream sending {@code lines}, then closing. */
  synchronized WatchingApiServer watch(String... lines) {
    watches.add(json(200, String.join("\n", lines) + "\n"));
    return this;
  }

  /** Queues a watch answered with a Status error instead of a stream. */
  synchronized WatchingApiServer watchError(int code, String body) {
    watches.add(json(code, body));
    return this;
  }

  /** A JSON response that closes its connection at the end. */
  static MockResponse json(int code, String body) {
    return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json")
        .body(body).onResponseEnd(SocketEffect.ShutdownConnection.INSTANCE).build();
  }

  /** The requests received so far. */
  List<RecordedRequest> requests() {
    return List.copyOf(requests);
  }

  /** The watch requests received so far. */
  List<RecordedRequest> watchRequests() {
    return requests.stream()
        .filter(r -> "true".equals(r.getUrl().queryParameter("watch"))).toList();
  }

  /** A kubeconfig file pointing at this server, namespace {@code namespace}. */
  Path kubeconfig(Path dir, String namespace) {
    String url = server.url("/").toString().replaceAll("/$", "");
    Path file = dir.resolve("kubeconfig-" + server.getPort());
    return KubernetesApiFixture.writeKubeconfig(file, url, namespace);
  }

  @Override
  public void close() {
    server.close();
  }
}

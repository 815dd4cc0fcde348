package dev.fairing4j.builder;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A forwarding TCP proxy on {@code 127.0.0.1} in front of a real registry that injects faults:
 * it reads the first request head of each connection and, by a {@link #rule}, forwards it,
 * answers 503 and closes, or resets the connection; it can also cut the first blob upload after
 * some bytes and then stop listening, as a registry that dies mid-push. {@link #down()} and
 * {@link #up()} stop and restart it on the same port. Every thread is a daemon and the proxy
 * closes itself after {@link #MAX_LIFETIME}, so a failing test cannot leave it running.
 *
 * <p>Only a connection's first request is classified: later requests on a kept-alive connection
 * are forwarded untouched. A refused request always closes its connection, so a client's retry
 * opens a new one and is classified again.
 */
final class FaultProxy implements AutoCloseable {
  /** What to do with a connection, decided on its first request line. */
  enum Action { FORWARD, SERVE_503, RESET }

  static final Duration MAX_LIFETIME = Duration.ofSeconds(120);
  private static final byte[] PATCH_MARK = "PATCH /v2/".getBytes(StandardCharsets.US_ASCII);

  private final int upstreamPort;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final List<String> firstLines = new CopyOnWriteArrayList<>();
  private final AtomicInteger served503 = new AtomicInteger();
  private final AtomicInteger resets = new AtomicInteger();
  private final long deadline = System.nanoTime() + MAX_LIFETIME.toNanos();
  private volatile Function<String, Action> rule = line -> Action.FORWARD;
  private volatile long cutAfterUploadBytes = -1;
  private volatile ServerSocket listener;

  private FaultProxy(int upstreamPort, ServerSocket listener) {
    this.upstreamPort = upstreamPort;
    this.listener = listener;
    this.port = listener.getLocalPort();
    acceptLoop(listener);
  }

  /** A proxy on a free loopback port forwarding to {@code 127.0.0.1:upstreamPort}. */
  static FaultProxy to(int upstreamPort) throws IOException {
    return new FaultProxy(upstreamPort, bind(0));
  }

  /** {@code 127.0.0.1:PORT}, the registry part of an image reference through the proxy. */
  String hostPort() {
    return "127.0.0.1:" + port;
  }

  /** Decides each connection's fate from its first request line, e.g. {@code GET /v2/ HTTP/1.1}. */
  FaultProxy rule(Function<String, Action> newRule) {
    this.rule = newRule;
    return this;
  }

  /**
   * Once a blob upload ({@code PATCH /v2/...}) has sent {@code bytes} bytes through the proxy,
   * drops every connection and stops listening, like a registry killed mid-push.
   */
  FaultProxy dieDuringFirstUploadAfter(long bytes) {
    this.cutAfterUploadBytes = bytes;
    return this;
  }

  /** First request lines of every connection, in arrival order. */
  List<String> firstLines() {
    return List.copyOf(firstLines);
  }

  int served503() {
    return served503.get();
  }

  int resets() {
    return resets.get();
  }

  boolean isUp() {
    return listener != null;
  }

  /** Stops listening and drops every open connection: new connections are refused. */
  synchronized void down() {
    ServerSocket current = listener;
    listener = null;
    closeQuietly(current);
    open.forEach(FaultProxy::closeQuietly);
    open.clear();
  }

  /** Listens again on the same port, forwarding everything. */
  synchronized void up() throws IOException {
    if (listener == null) {
      rule = line -> Action.FORWARD;
      cutAfterUploadBytes = -1;
      listener = bind(port);
      acceptLoop(listener);
    }
  }

  @Override
  public void close() {
    down();
  }

  private static ServerSocket bind(int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    return socket;
  }

  private void acceptLoop(ServerSocket socket) {
    daemon("fault-proxy-accept-" + port, () -> {
      try {
        socket.setSoTimeout(250);
      } catch (IOException e) {
        return;
      }
      while (!socket.isClosed()) {
        if (System.nanoTime() > deadline) {
          close();
          return;
        }
        try {
          Socket client = socket.accept();
          open.add(client);
          daemon("fault-proxy-conn", () -> handle(client));
        } catch (java.net.SocketTimeoutException tick) {
          // check the deadline
        } catch (IOException closed) {
          return;
        }
      }
    });
  }

  private void handle(Socket client) {
    try (client) {
      client.setSoTimeout((int) MAX_LIFETIME.toMillis());
      InputStream in = client.getInputStream();
      int first = in.read();
      if (first == 0x16) {
        // a TLS ClientHello (clients try HTTPS first): the registry answers it with an HTTP
        // error, which tells the client to fall back to plain HTTP; nothing to classify
        forward(client, new byte[] {0x16});
        return;
      }
      if (first < 0) {
        return;
      }
      byte[] rest = readHead(in);
      byte[] head = new byte[rest.length + 1];
      head[0] = (byte) first;
      System.arraycopy(rest, 0, head, 1, rest.length);
      if (head.length == 0) {
        return;
      }
      String text = new String(head, StandardCharsets.ISO_8859_1);
      String firstLine = text.substring(0, Math.max(0, text.indexOf("\r\n")));
      firstLines.add(firstLine);
      switch (rule.apply(firstLine)) {
        case SERVE_503 -> {
          served503.incrementAndGet();
          byte[] body = "{\"errors\":[{\"code\":\"UNAVAILABLE\",\"message\":\"injected\"}]}"
              .getBytes(StandardCharsets.UTF_8);
          OutputStream out = client.getOutputStream();
          out.write(("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
              + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          out.write(body);
          out.flush();
          client.shutdownOutput();
        }
        case RESET -> {
          resets.incrementAndGet();
          client.setSoLinger(true, 0);  // close with RST, not FIN
        }
        case FORWARD -> forward(client, head);
      }
    } catch (IOException dropped) {
      // either side went away; the other side sees a closed connection
    } finally {
      open.remove(client);
    }
  }

  private void forward(Socket client, byte[] head) throws IOException {
    try (Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
      open.add(upstream);
      Thread back = daemon("fault-proxy-back", () -> pump(upstream, client, false));
      OutputStream toUpstream = upstream.getOutputStream();
      watchForCut(head, 0);
      toUpstream.write(head);
      pump(client, upstream, true);
      try {
        back.join(MAX_LIFETIME.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } finally {
      open.removeIf(Socket::isClosed);
    }
  }

  // bytes of the current connection's blob upload seen so far; -1 before a PATCH is seen
  private final ThreadLocal<long[]> uploadBytes = ThreadLocal.withInitial(() -> new long[] {-1});

  private void watchForCut(byte[] data, int length) {
    long limit = cutAfterUploadBytes;
    if (limit < 0) {
      return;
    }
    int n = length == 0 ? data.length : length;
    long[] seen = uploadBytes.get();
    if (seen[0] < 0 && indexOf(data, n, PATCH_MARK) >= 0) {
      seen[0] = 0;
    }
    if (seen[0] >= 0) {
      seen[0] += n;
      if (seen[0] > limit) {
        down();
      }
    }
  }

  private void pump(Socket from, Socket to, boolean clientToUpstream) {
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buffer)) >= 0; ) {
        if (clientToUpstream) {
          watchForCut(buffer, n);
          if (!isUp() && cutAfterUploadBytes >= 0) {
            return;  // died mid-upload: these bytes never reach the registry
          }
        }
        out.write(buffer, 0, n);
        out.flush();
      }
      to.shutdownOutput();
    } catch (IOException closed) {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    for (int b; (b = in.read()) >= 0; ) {
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4 || head.size() > 64 * 1024) {
        break;
      }
    }
    return head.toByteArray();
  }

  private static int indexOf(byte[] data, int length, byte[] mark) {
    outer:
    for (int i = 0; i + mark.length <= length; i++) {
      for (int j = 0; j < mark.length; j++) {
        if (data[i + j] != mark[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static Thread daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static void closeQuietly(java.io.Closeable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}

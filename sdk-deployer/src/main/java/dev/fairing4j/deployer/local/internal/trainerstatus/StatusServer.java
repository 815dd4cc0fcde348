package dev.fairing4j.deployer.local.internal.trainerstatus;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fairing4j.deployer.job.internal.Mappers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TrainJob's status server on this machine: what Trainer's controller serves on port 10443
 * ({@code pkg/statusserver}), for the one job, on {@code 127.0.0.1} only. It takes
 * {@code POST <status path>} with the job's bearer token and a {@code {"trainerStatus": ..}}
 * body, checks the body as the TrainJob's CRD would, keeps it ({@link StatusReports}) and
 * answers with the update, as the plugin's server does; every other request gets that server's
 * answer too, a Kubernetes {@code Status} object: 403 for a wrong token or another job's path,
 * 404 for another path, 405 for another method, 411 without a length, 413 for a body over 64 KiB
 * (the plugin's limit), 422 for a body the CRD refuses.
 *
 * <p>Bounded as a server in a job's supervisor must be: at most {@value #WORKERS} requests at
 * once and {@value #QUEUED} waiting (more are closed unanswered), 16 KiB of request head, 5 s
 * between a client's bytes and 10 s to send a whole request, one request per connection. So every
 * node of a large job can report at the same moment, and a client that stalls holds one thread
 * for 5 s at most. It lives as long as the job's supervisor supervises the job; {@link #close()}
 * closes every connection and ends every thread.
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusServer.class);
  static final int MAX_BODY = 1 << 16;
  private static final int MAX_HEAD = 16 * 1024;
  private static final int WORKERS = 32;
  private static final int QUEUED = 256;
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration REQUEST_DEADLINE = Duration.ofSeconds(10);
  private static final Pattern ANY_STATUS_PATH = Pattern.compile(
      "/apis/trainer\\.kubeflow\\.org/v1alpha1/namespaces/[^/]+/trainjobs/[^/]+/status");

  private final StatusEndpoint endpoint;
  private final StatusCredentials credentials;
  private final StatusReports reports;
  private final ServerSocket socket;
  private final ThreadPoolExecutor workers;
  private final Thread acceptor;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private StatusServer(StatusEndpoint endpoint, StatusCredentials credentials,
      StatusReports reports, ServerSocket socket) {
    this.endpoint = endpoint;
    this.credentials = credentials;
    this.reports = reports;
    this.socket = socket;
    String name = "fairing4j-trainer-status-" + endpoint.namespace() + "-" + endpoint.name();
    this.workers = new ThreadPoolExecutor(WORKERS, WORKERS, 30, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(QUEUED), r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
    workers.allowCoreThreadTimeOut(true);
    this.acceptor = new Thread(this::acceptLoop, name + "-accept");
    acceptor.setDaemon(true);
  }

  /**
   * Listens on {@code 127.0.0.1:<port>} with the credentials {@link StatusEndpoint#issue}
   * wrote; returns once it accepts connections.
   *
   * @throws IOException when the port is taken or the credentials cannot be read
   */
  public static StatusServer start(StatusEndpoint endpoint, java.nio.file.Path jobDir)
      throws IOException {
    StatusCredentials credentials = StatusCredentials.read(endpoint);
    ServerSocket socket = new ServerSocket();
    try {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), endpoint.port()),
          QUEUED);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    StatusServer server = new StatusServer(endpoint, credentials, new StatusReports(jobDir),
        socket);
    server.acceptor.start();
    return server;
  }

  /**
   * Stops listening, cuts off requests in progress, ends every thread and removes the job's copy
   * of the server key. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    try {
      socket.close();
    } catch (IOException e) {
      LOG.debug("closing the Trainer status server of {}", endpoint.name(), e);
    }
    workers.shutdownNow();
    // a read on a socket ignores the interrupt: closing it ends the read
    open.forEach(StatusServer::quietlyClose);
    try {
      acceptor.join(TimeUnit.SECONDS.toMillis(2));
      workers.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      // the job's copy of the server key has no use once nothing serves with it
      java.nio.file.Files.deleteIfExists(endpoint.keyStore());
    } catch (IOException e) {
      LOG.debug("Trainer status server of {}: key copy left", endpoint.name(), e);
    }
  }

  @Override
  public String toString() {
    return "StatusServer[" + endpoint.url() + "]";
  }

  private void acceptLoop() {
    while (!closed) {
      Socket connection;
      try {
        connection = socket.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("Trainer status server of {}: accept failed", endpoint.name(), e);
        }
        return;
      }
      try {
        workers.execute(() -> serve(connection));
      } catch (RejectedExecutionException e) {
        quietlyClose(connection); // too many at once: the client retries, as it would a 503
      }
    }
  }

  private void serve(Socket plain) {
    open.add(plain);
    if (closed) {
      quietlyClose(plain);
    }
    try (plain) {
      plain.setSoTimeout((int) READ_TIMEOUT.toMillis());
      // server-side TLS over the accepted connection; closing it closes the connection
      Socket connection = credentials.ssl().getSocketFactory().createSocket(plain, null, true);
      long deadline = System.nanoTime() + REQUEST_DEADLINE.toNanos();
      InputStream in = connection.getInputStream();
      OutputStream out = connection.getOutputStream();
      Response response;
      try {
        response = handle(in, out, deadline);
      } catch (Refused e) {
        response = e.response;
      }
      out.write(response.bytes());
      out.flush();
      connection.close();
    } catch (SocketException e) {
      LOG.debug("Trainer status server of {}: connection ended", endpoint.name(), e);
    } catch (IOException e) {
      // a timeout, a failed handshake, a client gone: nothing to answer
      LOG.debug("Trainer status server of {}: request not read", endpoint.name(), e);
    } finally {
      open.remove(plain);
    }
  }

  private Response handle(InputStream in, OutputStream out, long deadline)
      throws IOException, Refused {
    String head = readHead(in, deadline);
    String[] lines = head.split("\r\n");
    String[] requestLine = lines[0].split(" ");
    if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
      throw new Refused(Response.status(400, "BadRequest", "Bad request"));
    }
    Map<String, String> headers = headers(lines);
    long length = length(headers);
    boolean expectsContinue = "100-continue".equalsIgnoreCase(
        headers.getOrDefault("expect", "").strip());
    // An answer before the body is read drains it first: closing a TLS connection with unread
    // bytes resets it, and the client may then read the reset instead of the answer.
    Drain drain = response -> {
      if (!expectsContinue && length > 0 && length <= MAX_BODY) {
        readBody(in, (int) length, deadline);
      }
      return response;
    };
    String path = path(requestLine[1]);
    boolean ours = path.equals(endpoint.path());
    if (!ours && !ANY_STATUS_PATH.matcher(path).matches()) {
      return drain.then(Response.status(404, "NotFound", "Not found"));
    }
    if (!requestLine[0].equals("POST")) {
      return drain.then(Response.status(405, "MethodNotAllowed", "Method not allowed")
          .with("Allow", "POST"));
    }
    if (!ours || !credentials.authorizes(headers.get("authorization"))) {
      return drain.then(Response.status(403, "Forbidden", "Forbidden"));
    }
    if (length < 0) {
      return Response.status(411, "LengthRequired", "Content-Length required");
    }
    if (length > MAX_BODY) {
      return Response.status(413, "RequestEntityTooLarge", "Payload too large");
    }
    if (expectsContinue) {
      out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }
    byte[] body = readBody(in, (int) length, deadline);
    StatusUpdate update;
    try {
      update = StatusUpdate.parse(body);
    } catch (StatusUpdate.Invalid e) {
      return Response.status(422, "Invalid", e.getMessage());
    }
    if (update.trainerStatus().isPresent()) {
      ObjectNode status = update.trainerStatus().get();
      try {
        reports.append(status);
      } catch (IOException e) {
        LOG.warn("Trainer status server of {}: cannot keep the report", endpoint.name(), e);
        return Response.status(500, "InternalError", "Internal error");
      }
    }
    return new Response(200, update.echo(), Map.of());
  }

  /** The declared body length; -1 when the request gives none or streams chunks. */
  private static long length(Map<String, String> headers) throws Refused {
    if (headers.containsKey("transfer-encoding") || !headers.containsKey("content-length")) {
      return -1;
    }
    try {
      long length = Long.parseLong(headers.get("content-length").strip());
      if (length >= 0) {
        return length;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new Refused(Response.status(400, "BadRequest", "Bad Content-Length"));
  }

  /** Reads the unread body, then gives the answer. */
  private interface Drain {
    Response then(Response response) throws IOException;
  }

  private static String readHead(InputStream in, long deadline) throws IOException, Refused {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      checkDeadline(deadline);
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed before the request's head ended");
      }
      head.write(b);
      if (head.size() > MAX_HEAD) {
        throw new Refused(Response.status(431, "RequestHeaderFieldsTooLarge",
            "Request header fields too large"));
      }
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String text = head.toString(StandardCharsets.ISO_8859_1);
    return text.substring(0, text.length() - 4);
  }

  private static byte[] readBody(InputStream in, int length, long deadline) throws IOException {
    byte[] body = new byte[length];
    int read = 0;
    while (read < length) {
      checkDeadline(deadline);
      int n = in.read(body, read, length - read);
      if (n < 0) {
        throw new IOException("connection closed before the body ended");
      }
      read += n;
    }
    return body;
  }

  private static void checkDeadline(long deadline) throws IOException {
    if (System.nanoTime() - deadline > 0) {
      throw new IOException("request not sent within " + REQUEST_DEADLINE.toSeconds() + " s");
    }
  }

  private static Map<String, String> headers(String[] lines) throws Refused {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon <= 0) {
        throw new Refused(Response.status(400, "BadRequest", "Bad header"));
      }
      String name = lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT);
      String value = lines[i].substring(colon + 1).strip();
      if (headers.putIfAbsent(name, value) != null && (name.equals("content-length")
          || name.equals("authorization"))) {
        throw new Refused(Response.status(400, "BadRequest", "Repeated " + name));
      }
    }
    return headers;
  }

  private static String path(String target) throws Refused {
    try {
      String path = new URI(target).getRawPath();
      if (path == null) {
        throw new Refused(Response.status(400, "BadRequest", "Bad request target"));
      }
      return path;
    } catch (URISyntaxException e) {
      throw new Refused(Response.status(400, "BadRequest", "Bad request target"));
    }
  }

  private static void quietlyClose(Socket connection) {
    try {
      connection.close();
    } catch (IOException ignored) {
      // refused unanswered: nothing was read or written
    }
  }

  /** A request that cannot be served, with the answer it gets. */
  private static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Response response;

    Refused(Response response) {
      super(null, null, false, false);
      this.response = response;
    }
  }

  /** An answer: its code, its JSON body, its extra headers. */
  private record Response(int code, String body, Map<String, String> headers) {
    static Response status(int code, String reason, String message) {
      ObjectNode status = Mappers.JSON.createObjectNode();
      status.put("kind", "Status");
      status.put("apiVersion", "v1");
      status.putObject("metadata");
      status.put("status", "Failure");
      status.put("message", message);
      status.put("reason", reason);
      status.put("code", code);
      return new Response(code, status.toString(), Map.of());
    }

    Response with(String header, String value) {
      Map<String, String> more = new LinkedHashMap<>(headers);
      more.put(header, value);
      return new Response(code, body, more);
    }

    byte[] bytes() {
      byte[] content = body.getBytes(StandardCharsets.UTF_8);
      StringBuilder head = new StringBuilder("HTTP/1.1 ").append(code).append(' ')
          .append(phrase(code)).append("\r\nContent-Type: application/json\r\nContent-Length: ")
          .append(content.length).append("\r\nConnection: close\r\n");
      headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
      head.append("\r\n");
      byte[] start = head.toString().getBytes(StandardCharsets.US_ASCII);
      byte[] all = new byte[start.length + content.length];
      System.arraycopy(start, 0, all, 0, start.length);
      System.arraycopy(content, 0, all, start.length, content.length);
      return all;
    }

    private static String phrase(int code) {
      return switch (code) {
        case 200 -> "OK";
        case 400 -> "Bad Request";
        case 403 -> "Forbidden";
        case 404 -> "Not Found";
        case 405 -> "Method Not Allowed";
        case 411 -> "Length Required";
        case 413 -> "Payload Too Large";
        case 422 -> "Unprocessable Entity";
        case 431 -> "Request Header Fields Too Large";
        default -> "Internal Server Error";
      };
    }
  }
}

package dev.fairing4j.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The audit log of a {@link KubeApiServer}, read as the requests that reached the server: one
 * {@link Request} per audit ID (a watch logs a "started" and a "complete" stage; it counts once).
 * The fixture's own and the controllers' requests are not logged.
 *
 * <pre>{@code
 * AuditLog.Mark mark = server.audit().mark();
 * ... code under test ...
 * assertThat(server.audit().since(mark, User.SDK)).extracting(Request::line)
 *     .containsExactly("create /apis/kubeflow.org/v1/namespaces/ns/pytorchjobs");
 * }</pre>
 */
public final class AuditLog {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The server writes the last stage of a request after answering it; wait this long for it. */
  private static final long SETTLE_MILLIS = 150;
  private static final java.time.Duration SETTLE_LIMIT = java.time.Duration.ofSeconds(2);

  private final Path file;

  AuditLog(Path file) {
    this.file = file;
  }

  /**
   * A position in the log and the time it was taken: requests received before it (a watch of an
   * earlier test that ends later, say) are not counted after it.
   */
  public record Mark(long offset, Instant time) {}

  /**
   * One request.
   *
   * @param verb the Kubernetes verb ({@code create}, {@code get}, {@code list}, {@code watch},
   *     {@code patch}, {@code delete}, ...)
   * @param uri the request URI with its query
   * @param user the user name
   * @param status the response code (0 while a watch is still open)
   * @param userAgent the client's User-Agent
   */
  public record Request(String verb, String uri, String user, int status, String userAgent) {
    /** {@code "verb /path?query"}, for readable assertions. */
    public String line() {
      return verb + " " + uri;
    }

    /** The URI without its query. */
    public String path() {
      int q = uri.indexOf('?');
      return q < 0 ? uri : uri.substring(0, q);
    }
  }

  /** The audit log file. */
  public Path file() {
    return file;
  }

  /** Now: the current end of the log. */
  public Mark mark() {
    return new Mark(size(), Instant.now());
  }

  /** Every request received after {@code mark}, oldest first. */
  public List<Request> since(Mark mark) {
    return read(mark, settledSize(), null);
  }

  /** The requests of {@code user} received after {@code mark}, oldest first. */
  public List<Request> since(Mark mark, KubeApiServer.User user) {
    return read(mark, settledSize(), user.username());
  }

  private List<Request> read(Mark mark, long to, String user) {
    long from = mark.offset();
    if (to <= from) {
      return List.of();
    }
    byte[] bytes = new byte[(int) (to - from)];
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      in.seek(from);
      in.readFully(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    Map<String, Request> byId = new LinkedHashMap<>();
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode event;
      try {
        event = JSON.readTree(line);
      } catch (IOException e) {
        continue;  // a line cut at the mark
      }
      String name = event.path("user").path("username").asText();
      if (user != null && !user.equals(name)) {
        continue;
      }
      String received = event.path("requestReceivedTimestamp").asText();
      if (!received.isEmpty() && Instant.parse(received).isBefore(mark.time())) {
        continue;
      }
      Request request = new Request(event.path("verb").asText(), event.path("requestURI").asText(),
          name, event.path("responseStatus").path("code").asInt(0),
          event.path("userAgent").asText());
      // The later stage of the same request carries its final status.
      byId.put(event.path("auditID").asText(), request);
    }
    return new ArrayList<>(byId.values());
  }

  private long settledSize() {
    long size = size();
    // A client that polls faster than SETTLE_MILLIS keeps the log growing: read what is there
    // after a while rather than never.
    long giveUp = System.nanoTime() + SETTLE_LIMIT.toNanos();
    while (System.nanoTime() - giveUp < 0) {
      try {
        Thread.sleep(SETTLE_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return size;
      }
      long now = size();
      if (now == size) {
        return now;
      }
      size = now;
    }
    return size;
  }

  private long size() {
    try {
      return Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

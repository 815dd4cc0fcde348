package dev.fairing4j.deploy.kubernetes.internal;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import okhttp3.Call;
import okhttp3.ResponseBody;
import okio.BufferedSource;

/**
 * One open watch request: either a stream of watch events (one JSON object a line) or the error
 * response the API server gave instead. Closing it ends the request and frees the connection;
 * {@link #close()} may be called from another thread and unblocks a read waiting for an event.
 */
public final class WatchStream implements Closeable {
  private final Call call;
  private final okhttp3.Response response;
  private final String errorBody;

  WatchStream(Call call, okhttp3.Response response) throws IOException {
    this.call = Objects.requireNonNull(call, "call");
    this.response = Objects.requireNonNull(response, "response");
    ResponseBody body = response.body();
    // An error response is short: read it now so the caller can translate it like any other.
    this.errorBody = response.isSuccessful() || body == null ? "" : body.string();
  }

  /** The HTTP status of the watch request. */
  public int code() {
    return response.code();
  }

  /** The error response, for {@link KubeRest#error}; only meaningful when the code is not 2xx. */
  public KubeRest.Response error() {
    return new KubeRest.Response(response.code(), errorBody);
  }

  /**
   * The next event ({@code type} and {@code object}); empty when the server ended the stream.
   *
   * @throws IOException when the connection broke, or a line arrived cut short (a connection
   *     dropped mid-event): either way the caller resumes from the last resourceVersion it saw
   */
  public Optional<Map<String, Object>> next() throws IOException {
    BufferedSource source = response.body().source();
    while (true) {
      String line = source.readUtf8Line();
      if (line == null) {
        return Optional.empty();
      }
      if (line.isBlank()) {
        continue;
      }
      Map<String, Object> event = JsonTree.parseObject(line);
      if (event.isEmpty()) {
        throw new IOException("watch stream broke mid-event");
      }
      return Optional.of(event);
    }
  }

  @Override
  public void close() {
    call.cancel(); // unblocks a reader on another thread; closing alone would wait for it
    response.close();
  }
}

package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.deployer.job.internal.JsonTree;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import okhttp3.Call;
import okio.BufferedSource;

/**
 * One open watch request: either a stream of watch events (one JSON object a line) or the error
 * response the API server gave instead. Closing it ends the request and frees the connection;
 * {@link #close()} may be called from another thread and unblocks a read waiting for an event.
 */
public final class WatchStream extends StreamingResponse {
  WatchStream(Call call, okhttp3.Response response) throws IOException {
    super(call, response);
  }

  /**
   * The next event ({@code type} and {@code object}); empty when the server ended the stream.
   *
   * @throws IOException when the connection broke, or a line arrived cut short (a connection
   *     dropped mid-event): either way the caller resumes from the last resourceVersion it saw
   */
  public Optional<Map<String, Object>> next() throws IOException {
    BufferedSource source = source();
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
}

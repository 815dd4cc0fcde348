package dev.fairing4j.deployer.kubernetes.internal.transport;

import java.io.Closeable;
import java.io.IOException;
import java.util.Objects;
import okhttp3.Call;
import okhttp3.ResponseBody;
import okio.BufferedSource;

/**
 * An API request whose response stays open (a log with {@code follow=true}, a watch): either a
 * body read line by line as it arrives, or the error the server answered with instead.
 * {@link #close()} may be called from another thread and unblocks a read waiting for a line.
 */
abstract class StreamingResponse implements Closeable {
  private final Call call;
  private final okhttp3.Response response;
  private final String errorBody;

  StreamingResponse(Call call, okhttp3.Response response) throws IOException {
    this.call = Objects.requireNonNull(call, "call");
    this.response = Objects.requireNonNull(response, "response");
    ResponseBody body = response.body();
    // An error response is short: read it now so the caller can translate it like any other.
    this.errorBody = response.isSuccessful() || body == null ? "" : body.string();
  }

  /** The HTTP status. */
  public int code() {
    return response.code();
  }

  /** True for 2xx. */
  public boolean ok() {
    return response.isSuccessful();
  }

  /** The error response, for {@link KubeRest#error}; only meaningful when not {@link #ok()}. */
  public KubeRest.Response error() {
    return new KubeRest.Response(response.code(), errorBody);
  }

  /** The open body, read a line at a time by subclasses. */
  BufferedSource source() {
    return response.body().source();
  }

  @Override
  public void close() {
    call.cancel(); // unblocks a reader on another thread; closing alone would wait for it
    response.close();
  }
}

package dev.fairing4j.deploy.kubernetes.internal;

import java.io.Closeable;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import okhttp3.Call;
import okhttp3.ResponseBody;

/**
 * One open container-log request ({@code follow=true} keeps it open while the container runs):
 * its lines as they arrive, or the error the API server answered with. {@link #close()} may be
 * called from another thread and unblocks a read waiting for the next line.
 */
public final class LogConnection implements Closeable {
  private final Call call;
  private final okhttp3.Response response;
  private final String errorBody;

  LogConnection(Call call, okhttp3.Response response) throws IOException {
    this.call = Objects.requireNonNull(call, "call");
    this.response = Objects.requireNonNull(response, "response");
    ResponseBody body = response.body();
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

  /** The error response, for {@link KubeRest#error}. */
  public KubeRest.Response error() {
    return new KubeRest.Response(response.code(), errorBody);
  }

  /** The next line; empty when the log ended (the container exited) or the server closed it. */
  public Optional<String> nextLine() throws IOException {
    return Optional.ofNullable(response.body().source().readUtf8Line());
  }

  @Override
  public void close() {
    call.cancel(); // unblocks a reader on another thread; closing alone would wait for it
    response.close();
  }
}

package dev.fairing4j.deployer.kubernetes.internal.transport;

import java.io.IOException;
import java.util.Optional;
import okhttp3.Call;

/**
 * One open container-log request ({@code follow=true} keeps it open while the container runs):
 * its lines as they arrive, or the error the API server answered with. {@link #close()} may be
 * called from another thread and unblocks a read waiting for the next line.
 */
public final class LogConnection extends StreamingResponse {
  LogConnection(Call call, okhttp3.Response response) throws IOException {
    super(call, response);
  }

  /** The next line; empty when the log ended (the container exited) or the server closed it. */
  public Optional<String> nextLine() throws IOException {
    return Optional.ofNullable(source().readUtf8Line());
  }
}

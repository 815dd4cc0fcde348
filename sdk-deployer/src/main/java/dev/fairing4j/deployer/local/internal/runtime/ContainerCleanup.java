package dev.fairing4j.deployer.local.internal.runtime;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.deployer.job.internal.Mappers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command that stops whatever a job runs outside its process groups (podman containers),
 * kept in the job directory ({@code cleanup.json}, an argv) so that any JVM that deletes the job,
 * not only the one that knows how it was launched, can run it.
 */
public final class ContainerCleanup {
  private static final String FILE = "cleanup.json";

  private ContainerCleanup() {}

  /** Records {@code argv} as the job's cleanup. */
  public static void record(Path jobDir, List<String> argv) {
    try {
      Mappers.JSON.writeValue(jobDir.resolve(FILE).toFile(), argv);
    } catch (IOException e) {
      throw FairingException.of("prepare job", jobDir.toString(), e.getMessage(),
          "check free disk space in the state directory", e);
    }
  }

  /** Runs the job's cleanup, if it has one; failures are left to the next cleanup. */
  public static void run(Path jobDir) {
    Path file = jobDir.resolve(FILE);
    if (!Files.isRegularFile(file)) {
      return;
    }
    try {
      List<String> argv = Mappers.JSON.readValue(file.toFile(), new TypeReference<List<String>>() {});
      Process p = new ProcessBuilder(argv).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      // an unreadable file or a missing podman: nothing this JVM could stop anyway
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

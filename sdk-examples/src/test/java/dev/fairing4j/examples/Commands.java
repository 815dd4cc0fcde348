package dev.fairing4j.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs an external command the way the ITs that drive whole tools (nbconvert, Maven, the release
 * script, gpg) need it: output and errors interleaved in one log file, so a long run cannot fill a
 * pipe and stall; a time limit after which the command and every process it started are killed
 * and the test fails with what it printed.
 */
final class Commands {
  /** The exit status and everything the command printed. */
  record Result(int status, String output) {}

  private Commands() {}

  /** A tool of the JDK this test runs on ({@code java}, {@code jshell}), not whatever PATH has. */
  static String jdkTool(String name) {
    return Path.of(System.getProperty("java.home"), "bin", name).toString();
  }

  static Result run(List<String> command, Path workDir, Map<String, String> env, Duration limit,
      Path logDir) throws IOException, InterruptedException {
    Path log = Files.createTempFile(logDir, "run", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    try {
      if (!process.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
        throw new AssertionError(command.get(0) + " did not finish in " + limit.toSeconds()
            + " s:\n" + Files.readString(log));
      }
      return new Result(process.exitValue(), Files.readString(log));
    } finally {
      Files.deleteIfExists(log);
    }
  }
}

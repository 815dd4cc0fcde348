package dev.fairing4j.builder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs a main class of the test class path in a new JVM, for cold-start and privilege tests. */
final class FreshJvm {
  private FreshJvm() {}

  /** The process's exit code and combined output. */
  record Result(int exitCode, String output) {}

  /**
   * Runs {@code mainClass} with {@code args}; {@code prefix} (e.g. a setpriv command) goes before
   * {@code java}, {@code env} is added to the environment, {@code jvmOptions} after {@code java}.
   */
  static Result run(List<String> prefix, Map<String, String> env, List<String> jvmOptions,
      Class<?> mainClass, String... args) throws IOException, InterruptedException {
    Process process = start(prefix, env, jvmOptions, mainClass, args);
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes());
    return new Result(process.waitFor(), output);
  }

  /**
   * Starts {@code mainClass} like {@link #run} and returns at once, for a test that talks to the
   * child through its standard input and output (stderr is merged into stdout).
   */
  static Process start(List<String> prefix, Map<String, String> env, List<String> jvmOptions,
      Class<?> mainClass, String... args) throws IOException {
    String classPath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(prefix);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-cp", classPath, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    command.addAll(jvmOptions);
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    return builder.start();
  }
}

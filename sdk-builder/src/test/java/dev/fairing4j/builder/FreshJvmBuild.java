package dev.fairing4j.builder;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Builds one image in a JVM of its own, for tests that need a cold start: prints
 * {@code digest=<sha256:...>} and {@code millis=<build time>}.
 *
 * <p>Arguments: entry script, base image, target repository, base-layer cache directory.
 */
public final class FreshJvmBuild {
  private FreshJvmBuild() {}

  public static void main(String[] args) {
    long start = System.nanoTime();
    BuildContext context = Preprocessors.python(Path.of(args[0]))
        .requirements(Path.of("requirements.txt")).env("MODE", "test").prepare();
    ImageRef image = Builders.jib(args[1]).pushTo(args[2]).baseLayerCache(Path.of(args[3]))
        .build(context, ProgressListener.NONE);
    System.out.println("digest=" + image.digest().orElseThrow());
    System.out.println("millis=" + (System.nanoTime() - start) / 1_000_000);
    System.out.println("uptime=" + ManagementFactory.getRuntimeMXBean().getUptime());
  }

  /** Runs {@link #main} in a new JVM with this JVM's test class path; returns its output. */
  static String run(String... args) throws IOException, InterruptedException {
    FreshJvm.Result result = FreshJvm.run(List.of(), Map.of(), List.of(), FreshJvmBuild.class,
        args);
    if (result.exitCode() != 0) {
      throw new AssertionError("fresh JVM build failed:\n" + result.output());
    }
    return result.output();
  }
}

package dev.fairing4j.core.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.cache.internal.CacheLock;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cache lock across processes: a build in another JVM keeps a prune away. */
class CacheLockIT {
  @TempDir
  Path root;

  @Test
  void aBuildInAnotherProcessKeepsPruneAndCleanAwayUntilItEnds() throws Exception {
    Path tree = root.resolve(Caches.GIT_TREES).resolve("abc");
    Files.createDirectories(tree);
    Files.write(tree.resolve("train.py"), "print(1)\n".getBytes(StandardCharsets.UTF_8));

    Process build = new ProcessBuilder(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), HoldingBuild.class.getName(),
        root.toString())).redirectErrorStream(true).start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(build.getInputStream(),
        StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("holding");

      CacheReport during = Caches.at(root).waitingForBuilds(Duration.ofMillis(500)).clean();
      assertThat(tree).exists();
      assertThat(during.notes()).anyMatch(n -> n.contains("in this or another process"));

      build.getOutputStream().close();  // the build ends
      assertThat(build.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    CacheReport after = Caches.at(root).waitingForBuilds(Duration.ofSeconds(5)).clean();
    assertThat(tree).doesNotExist();
    assertThat(after.removedEntries()).isEqualTo(1);
  }

  /** Holds the caches shared, as a build does, until its stdin closes. */
  public static final class HoldingBuild {
    public static void main(String[] args) throws Exception {
      try (CacheLock held = CacheLock.shared(Path.of(args[0]))) {
        System.out.println("holding");
        System.out.flush();
        while (System.in.read() >= 0) {
          // wait for the end of input
        }
      }
    }
  }
}

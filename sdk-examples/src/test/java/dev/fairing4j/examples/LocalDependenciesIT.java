package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.PrebuiltDependencies;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.TestWheels;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's Python dependencies on {@code Clusters.local()}, the way users bring them: a
 * {@code requirements.txt} that pip resolves through the user's own pip configuration (here
 * {@code PIP_*} variables naming a local wheel directory, as behind a corporate mirror), and
 * dependencies prebuilt into the image's layer from a wheelhouse or a {@code file://} index. The
 * wheel is a real one the test writes; pip installs it.
 */
@Timeout(180)
class LocalDependenciesIT {
  private static final String TRAIN = "import hello_pkg\nprint(hello_pkg.GREETING, flush=True)\n";

  @TempDir Path state;
  @TempDir Path volumes;
  @TempDir Path dir;
  @TempDir Path wheels;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
  }

  /**
   * Before, every replica ran pip again inside its sandbox, which sees neither the PIP_*
   * variables nor the wheel directory: it retried, restarted and failed after ~50 s, though the
   * host's pip installed the package at submit.
   */
  @Test
  void requirementsAreInstalledOnceWithTheUsersPipConfigurationAndNotAgainPerReplica()
      throws Exception {
    TestWheels.write(wheels, "hello_pkg", "hello from the mirror");
    Files.writeString(dir.resolve("train.py"), TRAIN);
    Files.writeString(dir.resolve("requirements.txt"), "hello-pkg==1.0\n");

    String java = ProcessHandle.current().info().command().orElseThrow();
    ProcessBuilder child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        LocalDependenciesChild.class.getName(), state.toString(), volumes.toString(),
        dir.toString()).redirectErrorStream(true);
    Map<String, String> env = child.environment();
    env.keySet().removeIf(k -> k.startsWith("PIP_"));
    env.put("PIP_CONFIG_FILE", "/dev/null");   // only what follows: no pip.conf of this machine
    env.put("PIP_NO_INDEX", "1");
    env.put("PIP_FIND_LINKS", wheels.toString());
    Process process = child.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(150, TimeUnit.SECONDS)).isTrue();

    assertThat(out).as(out).contains("END SUCCEEDED", "[master-0] hello from the mirror",
        "[worker-0] hello from the mirror");
    // The image's start-up wrapper says this when it runs pip: it must not in a local replica.
    assertThat(out).doesNotContain("fairing4j: installing");
  }

  /** Before, submit refused: "no Python interpreter here can import hello_pkg". */
  @Test
  void prebuiltDependenciesFromAWheelhouseCountAsImportable() throws Exception {
    TestWheels.write(wheels, "hello_pkg", "hello from the wheelhouse");
    assertThat(run("wheelhouse", PrebuiltDependencies.fromWheelhouse(wheels)))
        .contains("hello from the wheelhouse");
  }

  /** Before, {@code fromIndex("file://...")} was refused as "not an http(s) URL". */
  @Test
  void prebuiltDependenciesFromALocalFileIndex() throws Exception {
    Path wheel = TestWheels.write(wheels, "hello_pkg", "hello from the file index");
    Path index = TestWheels.index(dir.resolve("simple"), wheel);
    assertThat(run("index", PrebuiltDependencies.fromIndex(index.toUri().toString())))
        .contains("hello from the file index");
  }

  private List<String> run(String name, PrebuiltDependencies prebuilt) throws IOException {
    Files.writeString(dir.resolve("train.py"), TRAIN);
    Files.writeString(dir.resolve("requirements.txt"), "hello-pkg==1.0\n");
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.python(dir.resolve("train.py"))
            .requirements(dir.resolve("requirements.txt")).prebuildRequirements(prebuilt))
        .deployer(Deployers.pyTorchJob(name)
            .on(Clusters.local().stateDir(state).volumesDir(volumes)))
        .run();
    try {
      assertThat(job.waitForCompletion(Duration.ofSeconds(60)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      return job.logs().snapshot().stream().map(LogLine::text).toList();
    } finally {
      job.delete();
    }
  }
}

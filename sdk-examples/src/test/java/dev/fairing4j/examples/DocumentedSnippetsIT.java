package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented snippets that run on {@code Clusters.local()}, run as a user runs them: pasted,
 * in order, into one jshell session (the jshell tool, not its API), with the SDK on the class
 * path. README's ten lines start the job {@code hello}; docs/running-locally.md trains on a
 * FashionMNIST subset; docs/following.md attaches to {@code hello} by name, follows it and
 * deletes it; docs/trainjob.md lists the runtimes and reads torch's version from one. Each
 * snippet's {@code Clusters.local()} is pointed at this test's own state and
 * volume directories. ReadmeSnippetsTest compiles every other snippet; those that need a cluster
 * or a registry are not run here.
 */
class DocumentedSnippetsIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path dir;

  @BeforeAll
  static void requireRealParts() {
    Tools.localTraining();
    // docs/trainjob.md's script posts its progress with requests
    Tools.requirePythonModule(Tools.torchPython(), "requests", "python3-requests");
  }

  @Test
  void theLocalSnippetsOfTheReadmeAndTheGuidesRunInJShellAsPasted() throws Exception {
    Path state = dir.resolve("state");
    Path volumes = dir.resolve("volumes");
    StringBuilder script = new StringBuilder();
    for (String block : List.of(ReadmeSnippetsTest.snippet("README.md", 0),
        ReadmeSnippetsTest.snippet("docs/running-locally.md", 0),
        ReadmeSnippetsTest.snippet("docs/following.md", 0),
        ReadmeSnippetsTest.snippet("docs/trainjob.md", 1),
        ReadmeSnippetsTest.snippet("docs/trainjob.md", 2))) {
      assertThat(block).contains("Clusters.local()");
      script.append(LocalClusterRedirect.apply(block, state, volumes)).append('\n');
    }
    // The one job the snippets leave (following.md deletes hello), then leave jshell.
    script.append("""
        TrainingClient.connect(Clusters.local().stateDir(java.nio.file.Path.of("%s"))).inNamespace("kubeflow").delete("mnist-local");
        progress.delete();
        /exit
        """.formatted(state));
    Path jsh = Files.writeString(dir.resolve("snippets.jsh"), script, StandardCharsets.UTF_8);

    Commands.Result jshell = Commands.run(List.of(
        Commands.jdkTool("jshell"),
        "--class-path", System.getProperty("java.class.path"), jsh.toString()), ROOT, Map.of(),
        Duration.ofMinutes(8), Files.createDirectories(dir.resolve("logs")));
    String out = jshell.output();
    System.out.println("DocumentedSnippetsIT:\n" + out);

    assertThat(jshell.status()).as("jshell:%n%s", out).isZero();
    // jshell reports a failed snippet and carries on; none may fail.
    assertThat(out).doesNotContain("Error:").doesNotContain("Exception")
        .doesNotContain("cannot find symbol");
    assertThat(out).as("README").contains("[master-0] rank 0 of 2: sum=3")
        .contains("[worker-0] rank 1 of 2: sum=3").containsPattern("hello +PyTorchJob +Succeeded");
    assertThat(out).as("running-locally.md").containsPattern("mnist-local +PyTorchJob +Succeeded");
    assertThat(volumes.resolve("traindb-models-claim/mnist_cnn.pt")).as("the model the guide"
        + " says it saves").isRegularFile();
    assertThat(out).as("following.md: the status table, then the metrics of hello")
        .containsPattern("hello-master-0 +Succeeded");
    assertThat(out).as("following.md: waitFor(RUNNING) on a job that already ended hears it")
        .contains("now Succeeded");
    assertThat(out).as("trainjob.md: the runtimes, then torch's version read by the probe")
        .containsPattern("torch-distributed +ClusterTrainingRuntime +torch +1 +0")
        .containsPattern("Optional\\[torch\\] Optional\\[\\d+\\.\\d+");
    assertThat(out).as("trainjob.md: the reports the script posted to the job's status server")
        .containsPattern("\\[33 at \\S+Z, 66 at \\S+Z, 100 at \\S+Z\\]");
  }
}

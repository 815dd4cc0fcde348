package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.local.LocalCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every example's {@code --dry-run}: the manifests equal the golden file under
 * {@code src/test/resources/golden/examples}, are valid against the real Kubeflow CRD schemas,
 * and nothing is built or started. {@code -Dgolden.update=true} rewrites the golden files after a
 * deliberate change.
 */
class ExamplesDryRunTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden/examples");
  private static final CrdSchemaValidator CRDS = CrdSchemaValidator.load();

  @TempDir Path state;
  @TempDir Path volumes;

  @ParameterizedTest
  @ValueSource(strings = {"traindb-mnist", "arena-dist", "gloo-demo", "tf-multiworker",
      "pytorch-simple", "pytorch-trainjob", "traindb-serve"})
  void dryRunPrintsTheGoldenManifestsValidAgainstTheCrds(String name) throws IOException {
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);
    Captured run = run(cluster, name, "--dry-run");

    assertThat(run.status).as(run.err).isZero();
    CRDS.assertAllValid(run.out);
    String actual = stable(name, run.out);
    Path golden = GOLDEN.resolve(name + ".yaml");
    if (Boolean.getBoolean("golden.update")) {
      Files.writeString(golden, actual);
    }
    assertThat(actual).isEqualTo(Files.readString(golden));
    assertThat(cluster.listAll()).isEmpty();
    assertThat(volumes).isEmptyDirectory();
  }

  @Test
  void theImageTagFollowsTheScriptAndStaysPutBetweenDryRuns() {
    String first = Examples.dryRun(ExampleOptions.parse("gloo-demo", "--dry-run"));
    String second = Examples.dryRun(ExampleOptions.parse("gloo-demo", "--dry-run"));
    String moreEpochs = Examples.dryRun(ExampleOptions.parse("gloo-demo", "--dry-run",
        "--epochs=3"));

    assertThat(second).isEqualTo(first);
    assertThat(image(first)).matches("registry\\.example\\.com/fairing4j/gloo-demo:[0-9a-f]{16}");
    // Arguments are per run, not part of the image.
    assertThat(image(moreEpochs)).isEqualTo(image(first));
    assertThat(moreEpochs).contains("\"--epochs=3\"");
  }

  @Test
  void theGitExampleNamesTheSameCommitAndImageEachTime() {
    String first = Examples.dryRun(ExampleOptions.parse("arena-dist", "--dry-run"));
    String second = Examples.dryRun(ExampleOptions.parse("arena-dist", "--dry-run"));

    assertThat(second).isEqualTo(first);
    assertThat(image(first)).matches("registry\\.example\\.com/fairing4j/arena-dist:[0-9a-f]{16}");
  }

  @Test
  void optionsShapeTheManifests() {
    String yaml = Examples.dryRun(ExampleOptions.parse("gloo-demo", "--dry-run", "--gpus", "2",
        "--namespace=team-a", "--registry", "registry.example.com/team-a/gloo",
        "--base", "python:3.11-slim", "--samples", "800"));

    CRDS.assertAllValid(yaml);
    assertThat(yaml).contains("namespace: team-a", "nvidia.com/gpu: \"2\"", "\"--samples=800\"",
        "image: registry.example.com/team-a/gloo:");
  }

  @Test
  void aDataClaimIsMountedReadOnlyWhereTheScriptsReadFashionMnist() {
    for (String name : List.of("traindb-mnist", "gloo-demo", "pytorch-simple",
        "tf-multiworker", "pytorch-trainjob")) {
      String without = Examples.dryRun(ExampleOptions.parse(name, "--dry-run"));
      String with = Examples.dryRun(ExampleOptions.parse(name, "--dry-run", "--data-claim",
          "fashion-mnist"));

      CRDS.assertAllValid(with);
      assertThat(without).doesNotContain("fashion-mnist");
      // The TrainJob carries the mount in a runtime patch, deeper: compare without indentation.
      assertThat(with.replaceAll("(?m)^ +", "")).as(name).contains("""
          - name: fashion-mnist
          mountPath: /usr/share/datasets/fashion-mnist
          readOnly: true
          """, "claimName: fashion-mnist");
    }
    assertThatThrownBy(() -> ExampleOptions.parse("arena-dist", "--data-claim", "x"))
        .hasMessageContaining("arena-dist reads FashionMNIST from its own claim training-data");
  }

  @Test
  void arenaUsesNcclOnlyWhereTheReplicasHaveGpus() {
    assertThat(Examples.dryRun(ExampleOptions.parse("arena-dist", "--dry-run")))
        .contains("\"--backend=nccl\"", "nvidia.com/gpu: \"1\"")
        .doesNotContain("--backend=gloo");
    assertThat(Examples.dryRun(ExampleOptions.parse("arena-dist", "--dry-run", "--gpus=0")))
        .contains("\"--backend=gloo\"")
        .doesNotContain("nvidia.com/gpu");
  }

  @Test
  void badCommandLinesAreRefusedWithTheUsage() {
    assertThatThrownBy(() -> ExampleOptions.parse("gloo-demo", "--epochs"))
        .hasMessageContaining("--epochs needs a value").hasMessageContaining("usage:");
    assertThatThrownBy(() -> ExampleOptions.parse("gloo-demo", "--epochs", "x"))
        .hasMessageContaining("--epochs needs a number, got 'x'");
    assertThatThrownBy(() -> ExampleOptions.parse("gloo-demo", "--kubeconfig", "/tmp/k"))
        .hasMessageContaining("--kubeconfig needs --registry REPO");
    assertThatThrownBy(() -> ExampleOptions.parse("gloo-demo", "--frobnicate"))
        .hasMessageContaining("unknown option --frobnicate");
    assertThatThrownBy(() -> Examples.find("no-such"))
        .hasMessageContaining("no example 'no-such'").hasMessageContaining("gloo-demo");
    assertThat(ExampleOptions.parse("tf-multiworker", "--kubeconfig=/tmp/k", "--registry",
        "r.example.com/x/y", "--gpus", "0", "--quiet")).isEqualTo(new ExampleOptions(
            "tf-multiworker", false, Optional.of(Path.of("/tmp/k")),
            Optional.of("r.example.com/x/y"), Optional.empty(), Optional.empty(), 1, 0,
            Optional.of(0), Optional.empty(), true));
  }

  private static String image(String yaml) {
    return yaml.lines().filter(l -> l.trim().startsWith("image: ")).findFirst().orElseThrow()
        .trim().substring("image: ".length());
  }

  // The git example's repository lives in the user's cache, whose path is part of the image's
  // labels and so of its tag and run id: those two are masked for it alone.
  private static String stable(String name, String yaml) {
    if (!name.equals("arena-dist")) {
      return yaml;
    }
    return yaml.replaceAll("(image: registry\\.example\\.com/fairing4j/arena-dist:)[0-9a-f]+",
        "$1<context-tag>").replaceAll("(fairing4j\\.dev/run-id: )\"?[0-9a-f]+\"?", "$1<run-id>");
  }

  record Captured(int status, String out, String err) {}

  static Captured run(LocalCluster cluster, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Examples.run(ExampleOptions.parse(args), cluster, new ExampleOutput(
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)));
    return new Captured(status, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }
}

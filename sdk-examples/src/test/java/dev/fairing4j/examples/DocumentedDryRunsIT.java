package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented snippets that submit to a cluster, run as dry runs: every java block of README.md
 * and docs/ that ends a pipeline with {@code run()} or {@code serve()} on
 * {@code Clusters.kubernetes()} is pasted into one jshell session with that call turned into
 * {@code dryRun()}, so each one validates its whole input and renders its manifests, as it would
 * before the first request. Nothing is built, pushed or sent. What a dry run cannot stand in for
 * is given as a user would have it: the files the snippet names (the Dockerfile the guide shows
 * in its comment, a script), a kubeconfig with the context it names, the token it reads from the
 * environment; a {@code sha256:...} placeholder becomes a digest. The statements after the call
 * (waits, predictions) need the cluster and are left out.
 */
class DocumentedDryRunsIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern SUBMIT = Pattern.compile(
      "(?s)^\\s*(?://[^\\n]*\\s*)*(?:[\\w.<>?]+\\s+)?(\\w+)\\s*=\\s*(.*?)\\.\\s*(?://[^\\n]*\\s*)*(?:run|serve)\\(\\)"
          + "\\s*;\\s*(?://[^\\n]*)?\\s*$");
  private static final String IMPORTS = "import dev.fairing4j.core.*; import dev.fairing4j.builder.*;"
      + " import dev.fairing4j.deployer.*; import dev.fairing4j.deployer.job.*;"
      + " import dev.fairing4j.deployer.kubeflow.*;"
      + " import dev.fairing4j.deployer.serving.*; import dev.fairing4j.deployer.trainer.*;"
      + " import dev.fairing4j.deployer.tuning.*; import java.time.*;\n";

  @TempDir Path work;

  @Test
  void everyDocumentedClusterSnippetValidatesAndRendersAsADryRun() throws Exception {
    Path examples = Files.createSymbolicLink(work.resolve("sdk-examples"),
        ROOT.resolve("sdk-examples"));
    try {
      dryRunEverySnippet();
    } finally {
      Files.delete(examples);   // the link, not what it points at
    }
  }

  private void dryRunEverySnippet() throws Exception {
    Files.writeString(work.resolve("mnist.py"), "print('mnist')\n");
    Files.writeString(work.resolve("train.py"), "print('train')\n");
    Path kubeconfig = Files.writeString(work.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters:
        - cluster: {server: "https://127.0.0.1:9"}
          name: training
        contexts:
        - context: {cluster: training, user: ml, namespace: kubeflow}
          name: training
        current-context: training
        users:
        - name: ml
          user: {token: not-a-real-token}
        """);

    List<String> labels = new ArrayList<>();
    StringBuilder script = new StringBuilder(IMPORTS);
    try (jdk.jshell.JShell shell = jdk.jshell.JShell.create()) {
      jdk.jshell.SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
      for (Map.Entry<String, List<String>> document : ReadmeSnippetsTest.documents().entrySet()) {
        List<String> blocks = document.getValue();
        for (int i = 0; i < blocks.size(); i++) {
          String block = blocks.get(i);
          if (!block.contains("Clusters.kubernetes()")) {
            continue;
          }
          writeTheDockerfileItShows(block);
          List<String> statements = ReadmeSnippetsTest.pasted(analysis,
              block.replaceAll("@sha256:\\.\\.\\.", "@sha256:" + "0".repeat(64)));
          int last = -1;
          for (int s = 0; s < statements.size(); s++) {
            if (SUBMIT.matcher(statements.get(s)).matches()) {
              last = s;
            }
          }
          if (last < 0) {
            continue;   // no submission (e.g. Volumes...ensure(..)): ReadmeSnippetsTest compiles it
          }
          String label = document.getKey() + " #" + (i + 1);
          labels.add(label);
          script.append("System.out.println(\"=== ").append(label).append("\");\n");
          for (int s = 0; s <= last; s++) {
            Matcher submit = SUBMIT.matcher(statements.get(s));
            if (submit.matches()) {
              script.append("String ").append(submit.group(1)).append(" = ")
                  .append(submit.group(2)).append(".dryRun();\n")
                  .append("System.out.println(").append(submit.group(1)).append(");\n");
            } else {
              script.append(statements.get(s).strip()).append('\n');
            }
          }
        }
      }
    }
    script.append("/exit\n");
    assertThat(labels).as("documented cluster snippets").hasSizeGreaterThanOrEqualTo(6);
    Path jsh = Files.writeString(work.resolve("dry-runs.jsh"), script, StandardCharsets.UTF_8);

    Commands.Result jshell = Commands.run(List.of(
        Commands.jdkTool("jshell"),
        "--class-path", System.getProperty("java.class.path"), jsh.toString()), work,
        Map.of("KUBECONFIG", kubeconfig.toString(), "REGISTRY_TOKEN", "not-a-real-token",
            "HOME", work.toString()),
        Duration.ofMinutes(5), Files.createDirectories(work.resolve("logs")));
    String out = jshell.output();
    System.out.println("DocumentedDryRunsIT: " + labels.size() + " snippets:\n"
        + out.lines().filter(l -> l.startsWith("===") || l.startsWith("kind:"))
            .collect(Collectors.joining("\n")));

    assertThat(jshell.status()).as("jshell:%n%s", out).isZero();
    assertThat(out).as("jshell, running:%n%s", script).doesNotContain("Error:")
        .doesNotContain("Exception").doesNotContain("cannot find symbol");
    for (String label : labels) {
      String after = out.substring(out.indexOf("=== " + label));
      int next = after.indexOf("\n===", 1);
      String rendered = next < 0 ? after : after.substring(0, next);
      assertThat(rendered).as("%s renders its manifests", label).contains("apiVersion:")
          .containsPattern("(?m)^kind: ");
    }
    // A token must never reach a dry run's output.
    assertThat(out).doesNotContain("not-a-real-token");
  }

  /** The Dockerfile a snippet shows in its comment ("// Dockerfile beside train.py:"), if any. */
  private void writeTheDockerfileItShows(String block) throws Exception {
    List<String> lines = block.lines().toList();
    int start = lines.indexOf("// Dockerfile beside train.py:");
    if (start < 0) {
      if (block.contains("Path.of(\"Dockerfile\")") && !Files.exists(work.resolve("Dockerfile"))) {
        throw new AssertionError("a snippet names a Dockerfile the guide does not show");
      }
      return;
    }
    StringBuilder dockerfile = new StringBuilder();
    for (int i = start + 1; i < lines.size() && lines.get(i).startsWith("//   "); i++) {
      dockerfile.append(lines.get(i).substring("//   ".length())).append('\n');
    }
    Files.writeString(work.resolve("Dockerfile"), dockerfile);
  }
}

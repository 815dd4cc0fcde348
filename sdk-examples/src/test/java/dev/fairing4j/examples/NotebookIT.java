package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.core.testing.Tools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sdk-examples/notebooks/fairing4j-mnist.ipynb}: its code cells run in order through the
 * {@code jdk.jshell} API, as the JJava kernel runs them (JJava is not on Maven Central). The
 * {@code %maven} magic is skipped, the test class path standing in for it; JJava's
 * {@code display(Object, String...)} is replaced by a stand-in that records what would be shown.
 */
class NotebookIT {
  private static final Path NOTEBOOK = Path.of("notebooks/fairing4j-mnist.ipynb");
  // What JJava injects into every notebook; here it keeps the HTML for the assertions.
  private static final String DISPLAY_STAND_IN = """
      final java.util.List<String> displayed = new java.util.concurrent.CopyOnWriteArrayList<>();
      String display(Object o, String... mimeTypes) {
        displayed.add(String.join(",", mimeTypes) + ":" + o);
        return "display-" + displayed.size();
      }
      """;

  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void requireRealParts() {
    Tools.require("bwrap", "bubblewrap");
    Tools.torchPython();
    Tools.fashionMnist();
  }

  @Test
  void theNotebookRunsThePipelineAndShowsTheStatusAsHtml() throws Exception {
    JsonNode notebook = new ObjectMapper().readTree(NOTEBOOK.toFile());
    assertThat(notebook.path("metadata").path("kernelspec").path("language").asText())
        .isEqualTo("java");
    List<String> cells = new ArrayList<>();
    for (JsonNode cell : notebook.path("cells")) {
      if (cell.path("cell_type").asText().equals("code")) {
        StringBuilder source = new StringBuilder();
        cell.path("source").forEach(line -> source.append(line.asText()));
        cells.add(source.toString());
      }
    }
    assertThat(cells).hasSizeGreaterThanOrEqualTo(5);

    try (JShellSession jshell = new JShellSession()) {
      jshell.run(DISPLAY_STAND_IN);
      String code = LocalClusterRedirect.apply(String.join("\n//--- next cell\n", cells), state,
          volumes);
      for (String cell : code.split("\n//--- next cell\n")) {
        jshell.run(cell);
      }

      // Reported, not silently dropped: the kernel resolves the SDK with this line.
      assertThat(jshell.skipped()).containsExactly(
          "%maven dev.fairing4j:sdk-examples:0.1.0-SNAPSHOT");
      assertThat(jshell.run("job.status().phase() == JobPhase.SUCCEEDED")).isEqualTo("true");
      assertThat(jshell.run("displayed.size()")).isEqualTo("1");
      assertThat(jshell.run("displayed.get(0)")).startsWith("\"text/html:<table")
          .contains("fashion-mnist-notebook", "Succeeded");
    }
    assertThat(volumes.resolve("traindb-models-claim").resolve("mnist_cnn.pt")).isRegularFile();
  }
}

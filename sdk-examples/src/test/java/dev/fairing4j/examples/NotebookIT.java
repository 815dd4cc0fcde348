package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fairing4j.core.testing.Tools;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every notebook under {@code sdk-examples/notebooks} run headless in a real Jupyter Java kernel,
 * rapaio ({@code io.github.padreati:rapaio-jupyter-kernel}, fetched from Maven Central by this
 * module's build), under Debian's {@code jupyter nbconvert --execute} (nbclient), as a user runs
 * them: the kernelspec comes from {@code scripts/notebook-kernel.sh} (in a temporary Jupyter
 * path), the notebook's own {@code %dependency} line loads the SDK. The SDK's artifacts are put in
 * the kernel's own dependency cache, where {@code mvn install} would put them for a user; the
 * local Maven repository is its read-only tail for third-party jars, as the script sets up.
 * The one change to a notebook keeps its local jobs' state and volumes in this test's
 * directories. The saved outputs are checked: every cell ran, none failed, and what a user
 * should see is there (tables as HTML, live progress, the accuracy line, the loss plot).
 */
class NotebookIT {
  private static final Path NOTEBOOKS = Path.of("notebooks");
  private static final Path SCRIPT = Path.of("..", "scripts", "notebook-kernel.sh");
  private static final String[] MODULES = {"sdk-core", "sdk-builder", "sdk-deployer",
      "sdk-examples"};
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static Path nbconvert;

  @BeforeAll
  static void requireRealParts() {
    nbconvert = Tools.require("jupyter-nbconvert",
        "jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client");
    Tools.localTraining();
  }

  @Test
  void everyNotebookRunsInTheRapaioKernelAndShowsTablesProgressMetricsAndAPlot()
      throws Exception {
    Path jupyter = kernel();
    List<Path> notebooks = new ArrayList<>();
    try (DirectoryStream<Path> found = Files.newDirectoryStream(NOTEBOOKS, "*.ipynb")) {
      found.forEach(notebooks::add);
    }
    assertThat(notebooks).extracting(p -> p.getFileName().toString())
        .contains("fairing4j-mnist.ipynb", "fairing4j-trainjob-progress.ipynb");

    for (Path notebook : notebooks) {
      String name = notebook.getFileName().toString().replace(".ipynb", "");
      Path volumes = Files.createDirectories(dir.resolve(name + "/volumes"));
      JsonNode executed = execute(notebook, jupyter, dir.resolve(name));
      assertEveryCellRan(notebook, executed);
      if (name.equals("fairing4j-mnist")) {
        assertTheMnistNotebookShowsWhatAUserShouldSee(executed, volumes);
      }
      if (name.equals("fairing4j-trainjob-progress")) {
        assertTheProgressNotebookShowsTheTrainersReports(executed);
      }
    }
  }

  /** The kernelspec as the README installs it, with the SDK where mvn install would put it. */
  private Path kernel() throws Exception {
    Path jar = Path.of(System.getProperty("fairing4j.notebookKernel",
        "target/notebook-kernel/rapaio-jupyter-kernel.jar"));
    assertThat(jar).as("the build copies the kernel jar (maven-dependency-plugin)")
        .isRegularFile();
    Path kernelDir = dir.resolve("kernel");
    Path jupyter = dir.resolve("jupyter");
    Commands.Result script = run(List.of("bash", SCRIPT.toString(), "--kernel-dir", kernelDir.toString(),
        "--jupyter-dir", jupyter.toString(), "--jar", jar.toString()), Path.of("."), jupyter,
        60);
    assertThat(script.status()).as(script.output()).isZero();
    JsonNode spec = JSON.readTree(jupyter.resolve("kernels/rapaio-jupyter-kernel/kernel.json")
        .toFile());
    assertThat(spec.path("argv").toString()).contains("-Dmaven.repo.local.tail=");
    assertThat(spec.path("env").path("RJK_TIMEOUT_MILLIS").asText()).isEqualTo("-1");

    String version = System.getProperty("fairing4j.version", "0.1.0-SNAPSHOT");
    Path cache = kernelDir.resolve("mima_cache/dev/fairing4j");
    for (String module : MODULES) {
      Path target = Files.createDirectories(cache.resolve(module + "/" + version));
      Files.copy(Path.of("..", module, "target", module + "-" + version + ".jar"),
          target.resolve(module + "-" + version + ".jar"));
      Files.copy(Path.of("..", module, "pom.xml"), target.resolve(module + "-" + version
          + ".pom"));
    }
    Path parent = Files.createDirectories(cache.resolve("fairing4j-parent/" + version));
    Files.copy(Path.of("..", "pom.xml"), parent.resolve("fairing4j-parent-" + version + ".pom"));
    return jupyter;
  }

  private JsonNode execute(Path notebook, Path jupyter, Path work) throws Exception {
    Files.createDirectories(work);
    ObjectNode source = (ObjectNode) JSON.readTree(notebook.toFile());
    assertThat(source.path("metadata").path("kernelspec").path("name").asText())
        .isEqualTo("rapaio-jupyter-kernel");
    int locals = 0;
    for (JsonNode cell : source.path("cells")) {
      if (!cell.path("cell_type").asText().equals("code")) {
        continue;
      }
      String code = text(cell.path("source"));
      if (code.contains("Clusters.local()")) {
        locals++;
        ArrayNode lines = JSON.createArrayNode();
        lines.add(LocalClusterRedirect.apply(code, work.resolve("state"),
            work.resolve("volumes")));
        ((ObjectNode) cell).set("source", lines);
      }
    }
    // A second local cluster would escape the redirect and write to the user's directories.
    assertThat(locals).as("cells with Clusters.local() in " + notebook).isLessThanOrEqualTo(1);
    Path input = work.resolve(notebook.getFileName());
    JSON.writeValue(input.toFile(), source);
    Path output = work.resolve("executed.ipynb");

    long started = System.nanoTime();
    Commands.Result nb = run(List.of(nbconvert.toString(), "--to", "notebook", "--execute",
        "--ExecutePreprocessor.timeout=600", "--output", output.toString(), input.toString()),
        work, jupyter, 900);
    System.out.printf("NotebookIT: %s ran in the rapaio kernel in %.1f s%n",
        notebook.getFileName(), (System.nanoTime() - started) / 1e9);
    assertThat(nb.status()).as("nbconvert --execute of %s:%n%s", notebook, nb.output())
        .isZero();
    return JSON.readTree(output.toFile());
  }

  private static void assertEveryCellRan(Path notebook, JsonNode executed) {
    for (JsonNode cell : executed.path("cells")) {
      if (!cell.path("cell_type").asText().equals("code")) {
        continue;
      }
      String code = text(cell.path("source"));
      assertThat(cell.path("execution_count").isNumber()).as("ran: %s", code).isTrue();
      for (JsonNode output : cell.path("outputs")) {
        assertThat(output.path("output_type").asText()).as("output of %s in %s: %s", code,
            notebook, output).isNotEqualTo("error");
        // A value no one meant to show: what a cell ending in printf(..) displays, or a handle
        // without a toString of its own (ClassName@1a2b3c).
        assertThat(output.toString()).as("output of %s in %s", code, notebook)
            .doesNotContainPattern("[A-Za-z]\\.[A-Z][A-Za-z0-9$]*@[0-9a-f]{4,}");
      }
    }
  }

  private static void assertTheProgressNotebookShowsTheTrainersReports(JsonNode executed) {
    assertThat(html(cell(executed, "job.waitForCompletion("))).startsWith("<table>")
        .contains("Succeeded");
    // the reports the script posted to the job's status server, beside the nodes' log metrics
    // the trainer's last loss is node 0's last logged one, and its progress is the whole job's
    assertThat(html(cellExactly(executed, "job.metrics()"))).containsPattern(
        "<td>node-0</td><td>4</td><td>([0-9.]+)</td>.*<td>trainer</td><td>-</td><td>\\1</td>"
            + "<td>100%</td>");
    assertThat(streams(cell(executed, "job.metrics().series(\"trainer\", \"progress\")")))
        .containsPattern("\\[20 at \\S+, 40 at \\S+, 60 at \\S+, 80 at \\S+, 100 at \\S+\\]");
    assertThat(result(cellExactly(executed, "job.metrics().plot()")).path("data")
        .has("image/png")).isTrue();
  }

  private static void assertTheMnistNotebookShowsWhatAUserShouldSee(JsonNode executed,
      Path volumes) throws IOException {
    // One %dependency line: the SDK and what it needs, no test library, no logging binding.
    String resolved = streams(cell(executed, "%dependency /resolve"));
    List<String> jars = new ArrayList<>();
    Matcher added = Pattern.compile("Add to classpath: \\S*?(/[^\\s\\u001b]+\\.jar)")
        .matcher(resolved);
    while (added.find()) {
      jars.add(added.group(1));
    }
    System.out.println("NotebookIT: %dependency dev.fairing4j:sdk-examples brought " + jars.size()
        + " jars");
    assertThat(jars).isNotEmpty().anyMatch(j -> j.endsWith("/sdk-deployer-"
        + System.getProperty("fairing4j.version", "0.1.0-SNAPSHOT") + ".jar"))
        .noneMatch(j -> j.matches(".*/(junit|junit-jupiter[^/]*|assertj-core|opentest4j|"
            + "slf4j-simple|logback-classic|kubernetes-server-mock|mockwebserver3)-[^/]*\\.jar"));

    // The run: live progress in one display updated in place, then the accuracy line.
    JsonNode run = cell(executed, "pipeline.run()");
    List<JsonNode> displays = outputs(run, "display_data");
    assertThat(displays).as("one progress display, updated in place").hasSize(1);
    String progress = text(displays.get(0).path("data").path("text/html"));
    assertThat(progress).contains("class=\"fairing4j-progress\"")
        .contains("fashion-mnist-notebook: Running -&gt; Succeeded")
        .containsPattern("<progress value=\"[0-9.]+\" max=\"100\"")
        .containsPattern("epoch 2 \\d+%").contains("loss=");
    assertThat(text(displays.get(0).path("data").path("text/plain")))
        .contains("fashion-mnist-notebook: Running -> Succeeded");
    assertThat(streams(run)).containsPattern("\\[master-0\\] accuracy=0\\.\\d{4}")
        .contains("[worker-0] Train Epoch: 2");

    // Tables as HTML, not collapsed text.
    assertThat(html(cellExactly(executed, "job"))).startsWith("<table>")
        .contains("<td>fashion-mnist-notebook</td>", "<td>Succeeded</td>", "<th>POD</th>");
    assertThat(html(cell(executed, "client.list()"))).startsWith("<table>")
        .contains("<th>NAME</th>", "<td>fashion-mnist-notebook</td>");
    assertThat(html(cell(executed, "client.get("))).contains("<th>INSTANCE</th>",
        "<td>fashion-mnist-notebook-master-0</td>", "<td>fashion-mnist-notebook-worker-0</td>");
    String metrics = html(cellExactly(executed, "job.metrics()"));
    assertThat(metrics).startsWith("<table>").contains("<th>loss</th>", "<th>accuracy</th>",
        "<td>master-0</td>", "<td>worker-0</td>");

    // The plot, as an image.
    JsonNode plot = result(cellExactly(executed, "job.metrics().plot()"));
    byte[] png = Base64.getDecoder().decode(text(plot.path("data").path("image/png"))
        .replace("\n", ""));
    assertThat(png).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    Files.write(Path.of("target", "notebook-metrics-plot.png"), png);

    // Served from the claim, as accurate as trained, and listed as an endpoint.
    assertThat(html(cell(executed, "endpoint.waitUntilReady("))).startsWith("<table>")
        .contains("<td>Deployment default/fashion-mnist-serve</td>", "<td>Ready</td>",
            "<td>1/1</td>");
    double trained = Double.parseDouble(streams(run).lines()
        .filter(l -> l.startsWith("[master-0] accuracy=")).reduce((first, last) -> last)
        .orElseThrow().substring("[master-0] accuracy=".length()).strip());
    Matcher served = Pattern.compile("served accuracy=(0\\.\\d{4}) on 1000 test images")
        .matcher(streams(cell(executed, "endpoint.predict(test.images())")));
    assertThat(served.find()).as("the served accuracy line").isTrue();
    // One image either way: the server runs the images as one batch, the training in 100s.
    assertThat(Math.abs(Double.parseDouble(served.group(1)) - trained))
        .isLessThanOrEqualTo(1.0 / 1000 + 1e-9);
    assertThat(html(cellExactly(executed, "client.endpoints()"))).startsWith("<table>")
        .contains("<td>fashion-mnist-serve</td>", "<td>Ready</td>");

    // Tuned: four trials two at a time, the table with the best marked, its job's metrics.
    String tuned = html(cell(executed, "Experiment.of(\"fmnist-tune\""));
    assertThat(tuned).startsWith("<table>").contains("<th>lr</th>", "<th>momentum</th>",
        "<th>accuracy</th>", " *</td>", "experiment fmnist-tune: Succeeded (all 4 trials ended,"
            + " 4 succeeded, 0 failed)");
    assertThat(streams(cell(executed, "search.best()"))).containsPattern(
        "best: trial \\d accuracy=0\\.\\d+ with lr=[0-9.]+, momentum=[0-9.]+");
    assertThat(html(cell(executed, "search.best()"))).startsWith("<table>")
        .contains("<th>accuracy</th>");
    for (String plotCell : List.of("search.results().plot()",
        "search.results().parameterPlot()")) {
      JsonNode trialPlot = result(cellExactly(executed, plotCell));
      assertThat(Base64.getDecoder().decode(text(trialPlot.path("data").path("image/png"))
          .replace("\n", ""))).as(plotCell).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    }

    // Saved next to the model.
    assertThat(streams(cell(executed, "Files.size(model)"))).contains("model saved to ");
    Path models = volumes.resolve("traindb-models-claim");
    assertThat(models.resolve("mnist_cnn.pt")).isRegularFile();
    assertThat(models.resolve("fashion-mnist-notebook-metrics.png")).isRegularFile();
  }

  private static JsonNode cell(JsonNode notebook, String containing) {
    for (JsonNode cell : notebook.path("cells")) {
      if (cell.path("cell_type").asText().equals("code")
          && text(cell.path("source")).contains(containing)) {
        return cell;
      }
    }
    throw new AssertionError("no code cell contains " + containing);
  }

  private static JsonNode cellExactly(JsonNode notebook, String source) {
    for (JsonNode cell : notebook.path("cells")) {
      if (text(cell.path("source")).strip().equals(source)) {
        return cell;
      }
    }
    throw new AssertionError("no code cell is " + source);
  }

  private static List<JsonNode> outputs(JsonNode cell, String type) {
    List<JsonNode> found = new ArrayList<>();
    cell.path("outputs").forEach(o -> {
      if (o.path("output_type").asText().equals(type)) {
        found.add(o);
      }
    });
    return found;
  }

  private static JsonNode result(JsonNode cell) {
    List<JsonNode> results = outputs(cell, "execute_result");
    assertThat(results).as("the value of %s", text(cell.path("source"))).hasSize(1);
    return results.get(0);
  }

  private static String html(JsonNode cell) {
    return text(result(cell).path("data").path("text/html"));
  }

  private static String streams(JsonNode cell) {
    return outputs(cell, "stream").stream().map(o -> text(o.path("text")))
        .collect(Collectors.joining());
  }

  private static String text(JsonNode source) {
    if (source.isTextual()) {
      return source.asText();
    }
    StringBuilder text = new StringBuilder();
    source.forEach(line -> text.append(line.asText()));
    return text.toString();
  }

  private Commands.Result run(List<String> command, Path workDir, Path jupyter, int seconds)
      throws Exception {
    return Commands.run(command, workDir, Map.of("JUPYTER_PATH", jupyter.toString(),
        "JUPYTER_RUNTIME_DIR", dir.resolve("runtime").toString()), Duration.ofSeconds(seconds),
        dir);
  }
}

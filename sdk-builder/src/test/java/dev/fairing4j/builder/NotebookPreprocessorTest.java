package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fairing4j.builder.NotebookScript.Kind;
import dev.fairing4j.builder.NotebookScript.Removal;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotebookPreprocessorTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** A notebook with the given cells; a cell is {type, source, tags...}. */
  private Path notebook(String name, String[]... cells) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("nbformat", 4).put("nbformat_minor", 5);
    root.putObject("metadata").putObject("kernelspec").put("name", "python3");
    ArrayNode array = root.putArray("cells");
    for (String[] cell : cells) {
      ObjectNode node = array.addObject();
      node.put("cell_type", cell[0]);
      ArrayNode source = node.putArray("source");
      // Jupyter stores source as a list of lines, each but the last ending with \n.
      String[] lines = cell[1].split("(?<=\n)");
      for (String line : lines) {
        source.add(line);
      }
      ArrayNode tags = node.putObject("metadata").putArray("tags");
      for (int i = 2; i < cell.length; i++) {
        tags.add(cell[i]);
      }
      if (cell[0].equals("code")) {
        node.putArray("outputs");
        node.putNull("execution_count");
      }
    }
    Path file = dir.resolve(name);
    JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
    return file;
  }

  private static String[] code(String source, String... tags) {
    String[] cell = new String[2 + tags.length];
    cell[0] = "code";
    cell[1] = source;
    System.arraycopy(tags, 0, cell, 2, tags.length);
    return cell;
  }

  @Test
  void codeCellsBecomeOneScriptWithCellMarkersAndMagicsRemoved() throws IOException {
    Path nb = notebook("mnist.ipynb",
        code("%matplotlib inline\nimport torch\n!pip install tqdm\n"),
        new String[] {"markdown", "# Training"},
        code("%%time\nfor i in range(3):\n    print(i)\n"),
        code("x = 1\nif x:\n    !nvidia-smi\nfiles = !ls\nprint(x)\n"),
        code("plot(x)\n", "skip"),
        code("doc = \"\"\"\n%d items\n\"\"\"\nprint(doc % 3)\n"));

    NotebookScript script = Preprocessors.notebook(nb).script();

    assertThat(script.script()).contains(
        "# --- cell 1 ---\npass  # fairing4j removed: %matplotlib inline\nimport torch\n"
            + "pass  # fairing4j removed: !pip install tqdm\n",
        "# --- cell 3: left out, %%time cell magic ---",
        "# --- cell 4 ---\nx = 1\nif x:\n    pass  # fairing4j removed: !nvidia-smi\n"
            + "pass  # fairing4j removed: files = !ls\nprint(x)\n",
        "# --- cell 5: skipped (tag 'skip') ---",
        "# --- cell 6 ---\ndoc = \"\"\"\n%d items\n\"\"\"\nprint(doc % 3)\n");
    assertThat(script.script()).doesNotContain("plot(x)", "# Training", "print(i)");
    assertThat(script.removed()).containsExactly(
        new Removal(1, 1, "%matplotlib inline", Kind.LINE_MAGIC),
        new Removal(1, 3, "!pip install tqdm", Kind.SHELL_ESCAPE),
        new Removal(3, 1, "%%time", Kind.CELL_MAGIC),
        new Removal(4, 3, "!nvidia-smi", Kind.SHELL_ESCAPE),
        new Removal(4, 4, "files = !ls", Kind.SHELL_ESCAPE));
    assertThat(script.skippedCells()).containsExactly(5);
    assertThat(script.summary()).contains("removed 5 lines", "skipped cells tagged 'skip': [5]");
  }

  @Test
  void theConvertedScriptIsValidPython() throws Exception {
    Path nb = notebook("check.ipynb",
        code("import sys\n%load_ext autoreload\n"),
        code("for i in range(2):\n    !echo hi\n    %time x = i\nprint('ok')\n"));
    Path script = dir.resolve("check.py");
    Files.writeString(script, Preprocessors.notebook(nb).script().script());

    Process python = new ProcessBuilder("/usr/bin/python3", script.toString())
        .redirectErrorStream(true).start();

    assertThat(new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .isEqualTo("ok\n");
    assertThat(python.waitFor()).isZero();
  }

  @Test
  void prepareRunsTheConvertedScriptAndShipsNeighbours() throws IOException {
    Path nb = notebook("mnist.ipynb", code("import helpers\nprint('train')\n"));
    Files.writeString(dir.resolve("helpers.py"), "X = 1\n");

    BuildContext context = Preprocessors.notebook(nb).files(Path.of("helpers.py")).args("--lr", "1")
        .prepare();

    assertThat(context.files()).containsOnlyKeys("/app/mnist.py", "/app/helpers.py");
    assertThat(new String(context.files().get("/app/mnist.py").bytes(), StandardCharsets.UTF_8))
        .contains("# --- cell 1 ---\nimport helpers\nprint('train')\n");
    assertThat(context.command()).containsExactly("python", "-u", "/app/mnist.py", "--lr", "1");
  }

  @Test
  void fullNotebookShipsTheRunnerAndWritesWhereAVolumeCanKeepIt() throws IOException {
    Path nb = notebook("mnist.ipynb", code("%matplotlib inline\nprint(1)\n"));

    BuildContext context = Preprocessors.fullNotebook(nb).outputDir("/mnt/results")
        .kernel("python3").parameter("epochs", "2").prepare();

    assertThat(context.files()).containsOnlyKeys("/app/mnist.ipynb",
        "/app/.fairing4j/run_notebook.py");
    assertThat(context.files().get("/app/mnist.ipynb").bytes()).isEqualTo(Files.readAllBytes(nb));
    assertThat(new String(context.files().get("/app/.fairing4j/run_notebook.py").bytes(),
        StandardCharsets.UTF_8)).contains("import papermill", "from nbclient import");
    assertThat(context.command()).containsExactly("python", "-u",
        "/app/.fairing4j/run_notebook.py", "/app/mnist.ipynb", "/mnt/results/mnist.ipynb", "-k",
        "python3", "-p", "epochs", "2");
    assertThat(Preprocessors.notebook(nb).fullNotebook().prepare().command())
        .containsSequence("/app/mnist.ipynb", "/app/output/mnist.ipynb");
    assertThat(Preprocessors.fullNotebook(nb).toString()).isEqualTo("fullNotebook(mnist.ipynb)");
  }

  @Test
  void papermillOptionsWithoutFullNotebookAreAnError() throws IOException {
    Path nb = notebook("a.ipynb", code("print(1)\n"));

    assertThatThrownBy(() -> Preprocessors.notebook(nb).kernel("python3").prepare())
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.fix()).contains(".fullNotebook()"));
  }

  @Test
  void malformedJsonNamesTheNotebookAndTheLocation() throws IOException {
    Path nb = dir.resolve("broken.ipynb");
    Files.writeString(nb, "{\n  \"cells\": [\n    {\"cell_type\": \"code\",, }\n  ]\n}\n");

    assertThatThrownBy(() -> Preprocessors.notebook(nb).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("notebook");
          assertThat(e.getMessage()).contains("broken.ipynb", "not valid JSON", "line 3, column");
          assertThat(e.fix()).contains("line 3");
        });
  }

  @Test
  void aNotebookCutOffInsideAnArraySaysWhereTheArrayOpenedWithoutJacksonsSourceDescription()
      throws IOException {
    Path nb = dir.resolve("cut.ipynb");
    Files.writeString(nb, "{\"cells\": [");

    assertThatThrownBy(() -> Preprocessors.notebook(nb).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.getMessage())
            .contains("cut.ipynb", "not valid JSON", "(opened at line 1, column 11)")
            .doesNotContain("Source:").doesNotContain("REDACTED"));
  }

  @Test
  void jsonThatIsNotANotebookAndOldFormatsAreExplained() throws IOException {
    Path array = dir.resolve("array.ipynb");
    Files.writeString(array, "[1, 2]");
    Path old = dir.resolve("old.ipynb");
    Files.writeString(old, "{\"worksheets\": [{\"cells\": []}], \"nbformat\": 3}");

    assertThatThrownBy(() -> Preprocessors.notebook(array).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.getMessage()).contains("not a Jupyter notebook"));
    assertThatThrownBy(() -> Preprocessors.notebook(old).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.fix()).contains("nbconvert"));
    assertThatThrownBy(() -> Preprocessors.notebook(dir.resolve("missing.ipynb")).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("notebook");
          assertThat(e.getMessage()).contains("does not exist");
        });
  }

  @Test
  void sourceAsOneStringWorksToo() throws IOException {
    Path nb = dir.resolve("string.ipynb");
    Files.writeString(nb, "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", "
        + "\"source\": \"a = 1\\n!ls\", \"metadata\": {}}]}");

    NotebookScript script = Preprocessors.notebook(nb).script();

    assertThat(script.script())
        .endsWith("# --- cell 1 ---\na = 1\npass  # fairing4j removed: !ls\n");
    assertThat(script.removed()).extracting(Removal::line).containsExactly(2);
    assertThat(List.of(script.skippedCells())).containsExactly(List.of());
  }
}

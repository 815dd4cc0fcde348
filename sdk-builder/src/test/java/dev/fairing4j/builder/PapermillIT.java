package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs a full notebook's context as the container would: its files at their container paths (a
 * bubblewrap sandbox binds the run directory at /app) and its command, whose runner picks
 * papermill when it is installed. Needs papermill, which these machines cannot install: opt-in
 * with {@code mvn verify -Popt-in -DincludedTestTags=papermill}. Without papermill the runner
 * uses nbclient, which the default suite runs as a real job ({@code FullNotebookLocalIT}).
 */
@Tag(Tags.PAPERMILL)
class PapermillIT {
  @TempDir Path dir;

  @Test
  void theNotebookRunsAsIsAndTheExecutedCopyLandsInTheOutputDirectory() throws Exception {
    assertThat(Tools.find("papermill")).as("install it: pip install papermill ipykernel")
        .isPresent();
    Path bwrap = Tools.require("bwrap", "bubblewrap");
    Path notebook = dir.resolve("hello.ipynb");
    Files.writeString(notebook, "{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {"
        + "\"kernelspec\": {\"name\": \"python3\", \"display_name\": \"Python 3\","
        + " \"language\": \"python\"}}, \"cells\": [{\"cell_type\": \"code\", \"metadata\": {},"
        + " \"execution_count\": null, \"outputs\": [], \"source\": [\"%%time\\n\","
        + " \"print('ran in papermill')\"]}]}");
    BuildContext context = Preprocessors.fullNotebook(notebook).prepare();
    Path run = dir.resolve("run");
    for (Map.Entry<String, ContextFile> file : context.files().entrySet()) {
      Path target = run.resolve(file.getKey().substring("/app/".length()));
      Files.createDirectories(target.getParent());
      Files.write(target, file.getValue().bytes());
    }
    List<String> command = new ArrayList<>(List.of(bwrap.toString(), "--dev-bind", "/", "/",
        "--bind", run.toString(), "/app", "--chdir", "/app", "--die-with-parent"));
    List<String> runner = new ArrayList<>(context.command());
    runner.set(0, "/usr/bin/python3"); // the container's python; here Debian's, with papermill
    command.addAll(runner);

    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());

    assertThat(process.waitFor()).as(output).isZero();
    assertThat(output).contains("with papermill");
    assertThat(Files.readString(run.resolve("output/hello.ipynb"))).contains("ran in papermill");
  }
}

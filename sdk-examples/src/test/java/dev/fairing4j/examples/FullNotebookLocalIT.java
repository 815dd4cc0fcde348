package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.MetricPoint;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.local.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Preprocessors.fullNotebook(..)} as a real job on the local cluster, without papermill:
 * the runner it ships executes the notebook with Debian's nbclient and the real ipykernel in the
 * job's sandbox, injects the parameters after the cell tagged {@code parameters}, streams what the
 * cells print to the job's log (where metrics are read), and keeps the executed notebook on the
 * job's volume, also when a cell fails.
 */
class FullNotebookLocalIT {
  private static final String CLAIM = "notebook-results";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path state;
  @TempDir Path volumes;
  @TempDir Path dir;

  @BeforeAll
  static void requireRealParts() {
    Tools.require("bwrap", "bubblewrap");
    Tools.require("jupyter-nbconvert",
        "jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client");
  }

  private Path notebook(String name, String lastCell) throws Exception {
    Path notebook = dir.resolve(name);
    Files.writeString(notebook, """
        {"nbformat": 4, "nbformat_minor": 5,
         "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}},
         "cells": [
          {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "execution_count": null,
           "outputs": [], "source": ["epochs = 1\\n"]},
          {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [],
           "source": ["%%time\\n", "losses = []\\n", "for epoch in range(1, epochs + 1):\\n",
                      "    losses.append(2.0 / epoch)\\n",
                      "    print(f'Train Epoch: {epoch} [60/60 (100%)]\\\\tloss={losses[-1]:.4f}')\\n"]},
          {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [],
           "source": [LAST_CELL]}
         ]}
        """.replace("LAST_CELL", JSON.writeValueAsString(lastCell)));
    return notebook;
  }

  private TrainingJob run(String job, Path notebook) {
    LocalCluster cluster = Clusters.local().stateDir(state).volumesDir(volumes);
    return Fairing.pipeline()
        .preprocessor(Preprocessors.fullNotebook(notebook).outputDir("/mnt/results")
            .parameter("epochs", "2"))
        .deployer(Deployers.batchJob(job).mutate(Mutators.pvc(CLAIM, "/mnt/results")).on(cluster))
        .progress(ProgressListener.NONE)
        .run();
  }

  @Test
  void theNotebookRunsWithNbclientAndTheExecutedCopyStaysOnTheVolume() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    TrainingJob job = run("nb-full", notebook("train.ipynb",
        "print('accuracy=0.9100')\nlosses"));
    JobStatus end;
    try (LogStream logs = job.logs().follow(lines::add)) {
      end = job.waitForCompletion(Duration.ofMinutes(3));
    }

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(lines).contains("[pod-0] Train Epoch: 2 [60/60 (100%)]\tloss=1.0000",
        "[pod-0] accuracy=0.9100");
    assertThat(lines).anyMatch(l -> l.contains("with nbclient, kernel python3"))
        .noneMatch(l -> l.contains("Warning"));
    JobMetrics metrics = job.metrics();
    assertThat(metrics.series("pod-0", "loss")).extracting(MetricPoint::value)
        .containsExactly(2.0, 1.0);
    assertThat(metrics.latest("accuracy")).contains(0.91);

    JsonNode executed = JSON.readTree(volumes.resolve(CLAIM).resolve("train.ipynb").toFile());
    JsonNode cells = executed.path("cells");
    assertThat(cells).hasSize(4);
    assertThat(cells.get(1).path("metadata").path("tags").toString())
        .contains("injected-parameters");
    assertThat(cells.get(1).path("source").toString()).contains("epochs = 2");
    assertThat(cells.get(2).path("outputs").toString()).contains("loss=1.0000", "Wall time");
    assertThat(cells.get(3).path("outputs").toString()).contains("execute_result", "[2.0, 1.0]");
    for (JsonNode cell : cells) {
      assertThat(cell.path("execution_count").isNumber()).isTrue();
    }
  }

  @Test
  void aFailingCellFailsTheJobAndTheExecutedCopyShowsTheError() throws Exception {
    TrainingJob job = run("nb-fails", notebook("broken.ipynb",
        "learning_rate = 0.5\nimport no_such_module_xyz"));

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMinutes(3)))
        .isInstanceOfSatisfying(JobFailedException.class, e -> {
          String last = String.join("\n", e.lastLines());
          assertThat(last).contains("cell 4 failed: ModuleNotFoundError: No module named"
              + " 'no_such_module_xyz'");
          // IPython colours its traceback for a terminal: neither the log nor the message
          // keeps the escape codes.
          assertThat(e.getMessage()).doesNotContain("\u001b[");
        });
    assertThat(job.logs().snapshot()).extracting(LogLine::text)
        .noneMatch(l -> l.contains("\u001b["));
    // The failing cell's source is not echoed as log lines whose assignments read as metrics.
    assertThat(job.metrics().names()).doesNotContain("learning_rate", "epochs");
    String executed = Files.readString(volumes.resolve(CLAIM).resolve("broken.ipynb"));
    assertThat(executed).contains("\"output_type\": \"error\"", "ModuleNotFoundError",
        "loss=1.0000");
  }
}

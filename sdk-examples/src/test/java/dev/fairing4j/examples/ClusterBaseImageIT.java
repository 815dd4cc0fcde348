package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster suite's base image: the host's Python with Debian's torch, made once per machine
 * (cached by what it contains), pushed to the kit's registry, and good for pods: a job built on
 * it by Jib imports the host's very torch, torchvision and numpy in a pod on the kit's node and
 * reads FashionMNIST from a hostPath volume.
 */
@Tag(Tags.CLUSTER)
class ClusterBaseImageIT {
  private static ClusterKit kit;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
  }

  @Test
  void theBaseIsMadeOnceKeyedByItsContentAndPushedWithTwoLayers() throws IOException {
    TorchBaseImage.Pushed first = kit.base();
    TorchBaseImage.Pushed again = TorchBaseImage.pushTo(ClusterKit.REGISTRY);
    System.out.println("cluster: torch base again: cached=" + again.cached() + ", "
        + again.made().toMillis() + " ms to key, " + again.pushed().toMillis() + " ms to push");

    assertThat(again.cached()).as("a second call finds the layout it made").isTrue();
    assertThat(again.reference()).isEqualTo(first.reference())
        .matches("127\\.0\\.0\\.1:5055/fairing4j-it/torch-base@sha256:[0-9a-f]{64}");
    assertThat(first.layout().getFileName().toString()).matches("torch-[0-9a-f]{16}");
    // skopeo reads what the registry serves, independently of how the layout was written.
    JsonNode inspected = new ObjectMapper().readTree(PythonBaseImage.run(List.of(
        Tools.require("skopeo", "skopeo").toString(), "inspect", "--tls-verify=false",
        "docker://" + first.reference())));
    assertThat(inspected.path("Layers")).hasSize(2);
    assertThat(inspected.path("Labels").path("dev.fairing4j.test-base.key").asText())
        .startsWith(first.layout().getFileName().toString().substring("torch-".length()));
    assertThat(inspected.path("Labels").path("dev.fairing4j.test-base.packages").asText())
        .contains("python3-torch=", "python3-torchvision=", "python3-numpy=");
  }

  @Test
  void aPodOnTheBaseImportsTheHostsTorchAndReadsTheDataFromTheNode(@TempDir Path dir)
      throws IOException {
    String hostVersions = PythonBaseImage.run(List.of(Tools.torchPython().toString(), "-c",
        "import torch, torchvision, numpy; print(torch.__version__, torchvision.__version__,"
            + " numpy.__version__)")).strip();
    Path script = Files.writeString(dir.resolve("versions.py"), """
        import os, torch, torchvision, numpy
        import torch.distributed as dist
        print("versions", torch.__version__, torchvision.__version__, numpy.__version__)
        print("gloo", dist.is_gloo_available())
        print("data", sorted(os.listdir("/data")))
        """);

    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository("versions")))
        .deployer(Deployers.batchJob("torch-versions").namespace(kit.namespace())
            .mutate(Mutators.hostPath(Tools.fashionMnist().toString(), "/data").readOnly())
            .replaceExisting()
            .on(kit.cluster()))
        .progress(ProgressListener.NONE)
        .run();
    try {
      JobStatus end = job.waitForCompletion(Duration.ofMinutes(3));
      List<String> lines = job.logs().snapshot().stream().map(LogLine::text).toList();

      assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
      assertThat(lines).contains("versions " + hostVersions, "gloo True",
          "data ['t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz',"
              + " 'train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz']");
    } finally {
      job.delete();
    }
  }
}

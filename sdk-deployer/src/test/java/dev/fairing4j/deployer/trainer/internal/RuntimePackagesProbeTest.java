package dev.fairing4j.deployer.trainer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.deployer.trainer.RuntimePackages;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RuntimePackagesProbeTest {
  private static final TrainingRuntime TORCH = new TrainingRuntime("torch-distributed",
      TrainingRuntime.CLUSTER_WIDE, Optional.empty(), Optional.of("torch"), 1,
      Optional.of("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"), 0);

  private static List<LogLine> log(String... lines) {
    return java.util.Arrays.stream(lines).map(l -> new LogLine("node-0", "node", l,
        Optional.empty())).toList();
  }

  @Test
  void onlyTheMarkedLinesCountAndTheFirstOfANameWins() {
    RuntimePackages packages = RuntimePackagesProbe.parse(TORCH, log(
        "== CUDA ==", // an image's banner
        "fairing4j-package torch 2.5.1+cu124",
        "fairing4j-package scikit-learn 1.5.2",
        "WARNING: something the runtime prints",
        "fairing4j-package torch 1.0.0",
        "fairing4j-gpu 0, NVIDIA H200, 143771 MiB, 570.124.06",
        "fairing4j-packages-done"));

    assertThat(packages.packages()).containsOnlyKeys("scikit-learn", "torch");
    assertThat(packages.version("torch")).contains("2.5.1+cu124");
    assertThat(packages.version("Scikit_Learn")).as("pip's name matching")
        .contains("1.5.2");
    assertThat(packages.version("numpy")).isEmpty();
    assertThat(packages.gpus()).containsExactly("0, NVIDIA H200, 143771 MiB, 570.124.06");
    assertThat(packages.toString()).startsWith("torch-distributed: 2 Python packages; 1 GPU: 0,"
        + " NVIDIA H200").containsPattern("scikit-learn +1.5.2");
  }

  @Test
  void aLogWithoutTheEndMarkerIsNotTakenForTheWholeList() {
    FairingException cut = catchThrowableOfType(() -> RuntimePackagesProbe.parse(TORCH,
        log("fairing4j-package torch 2.5.1")), FairingException.class);

    assertThat(cut).hasMessageContaining("ends before its last line (1 packages read)");
  }

  @Test
  void theJobNameIsALabelThatLeavesRoomForTheUniqueSuffix() {
    TrainingRuntime longName = new TrainingRuntime("a-very-long-runtime-name-for-the-team",
        TrainingRuntime.NAMESPACED, Optional.of("ml"), Optional.empty(), 1, Optional.empty(), 0);

    assertThat(RuntimePackagesProbe.jobName(TORCH)).isEqualTo("packages-torch-distributed");
    assertThat(RuntimePackagesProbe.jobName(longName)).hasSizeLessThanOrEqualTo(30)
        .doesNotEndWith("-").startsWith("packages-a-very-long");
  }

  @Test
  void aRuntimesKindAndNamespaceGoTogether() {
    IllegalArgumentException e = catchThrowableOfType(() -> new TrainingRuntime("x",
        TrainingRuntime.NAMESPACED, Optional.empty(), Optional.empty(), 1, Optional.empty(), 0),
        IllegalArgumentException.class);
    assertThat(e).hasMessageContaining("a TrainingRuntime has one");
  }
}

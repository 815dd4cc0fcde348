package dev.fairing4j.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The environment failures a replica's last lines show, named with their fix. */
class ScriptFailuresTest {
  @Test
  void aCudaCallWithoutAGpuIsNamedWithTheCpuFallbackAndTheGpuRequest() {
    List<String> lines = List.of("Traceback (most recent call last):",
        "  File \"/app/train.py\", line 3, in <module>",
        "    torch.cuda.set_device(local_rank)",
        "AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'");

    assertThat(ScriptFailures.diagnose("PyTorchJob", lines)).get().asString()
        .contains("calls CUDA but its replica sees no GPU", "_cuda_setDevice",
            "torch.cuda.is_available()", "CUDA_VISIBLE_DEVICES", "Mutators.gpus(n)");
    assertThat(ScriptFailures.diagnose("PyTorchJob", List.of(
        "AssertionError: Torch not compiled with CUDA enabled"))).isPresent();
  }

  @Test
  void torchrunsVariablesUnderAPyTorchJobWithoutTorchrunNameTheVariableAndTorchrun() {
    List<String> lines = List.of("  File \"/app/train.py\", line 2, in <module>",
        "    local_rank = int(os.environ[\"LOCAL_RANK\"])",
        "  File \"<frozen os>\", line 679, in __getitem__",
        "KeyError: 'LOCAL_RANK'");

    assertThat(ScriptFailures.diagnose("PyTorchJob", lines)).get().asString()
        .startsWith("the script reads LOCAL_RANK").contains(".torchrun()");
    assertThat(ScriptFailures.diagnose("PyTorchJob",
        List.of("KeyError: 'LOCAL_WORLD_SIZE'"))).get().asString().contains("LOCAL_WORLD_SIZE");
    // A TrainJob runs torchrun already: a missing LOCAL_RANK there is something else.
    assertThat(ScriptFailures.diagnose("TrainJob", lines)).isEmpty();
  }

  @Test
  void anOrdinaryFailureIsNotGuessedAt() {
    assertThat(ScriptFailures.diagnose("PyTorchJob", List.of("ZeroDivisionError: division by"
        + " zero", "KeyError: 'learning_rate'"))).isEmpty();
  }
}

package dev.fairing4j.deployer.local.internal.python;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which external modules a replica's code needs, found without running it. */
class ImportScannerTest {
  private static final BuildContext CONTEXT = BuildContext.empty()
      .withFile("/app/train.py", ContextFile.ofText(String.join("\n",
          "from __future__ import annotations",
          "import os, sys as system",
          "import torch.distributed as dist",
          "from torchvision import datasets",
          "from model import Net",
          "from . import sibling",
          "try:",
          "    import wandb",
          "except ImportError:",
          "    wandb = None",
          "def f():",
          "    import matplotlib",
          "")))
      .withFile("/app/model.py", ContextFile.ofText("import numpy as np\nimport torch.nn\n"))
      .withFile("/app/pkg/__init__.py", ContextFile.ofText("import yaml\n"))
      .withFile("/app/pkg/__main__.py", ContextFile.ofText("import pkg.util\n"))
      .withFile("/app/pkg/util.py", ContextFile.ofText("import scipy\n"));

  @Test
  void findsTopLevelImportsOfTheScriptAndItsLocalModules() {
    assertThat(ImportScanner.requiredModules(List.of("python", "-u", "train.py"), CONTEXT,
        "/app")).containsExactlyInAnyOrder("os", "sys", "torch", "torchvision", "numpy");
  }

  @Test
  void torchrunNeedsTorch() {
    assertThat(ImportScanner.requiredModules(List.of("torchrun", "--nproc_per_node=2",
        "/app/model.py"), CONTEXT, "/app")).containsExactlyInAnyOrder("torch", "numpy");
  }

  @Test
  void followsModulesRunWithDashM() {
    assertThat(ImportScanner.requiredModules(List.of("python3", "-m", "pkg"), CONTEXT, "/app"))
        .containsExactlyInAnyOrder("yaml", "scipy");
    assertThat(ImportScanner.requiredModules(List.of("python3", "-m", "http.server"), CONTEXT,
        "/app")).containsExactly("http");
  }

  @Test
  void otherProgramsNeedNothing() {
    assertThat(ImportScanner.requiredModules(List.of("bash", "-c", "python train.py"),
        CONTEXT, "/app")).isEmpty();
    assertThat(ImportScanner.isPython("/usr/bin/python3.11")).isTrue();
    assertThat(ImportScanner.isPython("pythonista")).isFalse();
  }

  @Test
  void aPredictorsImportsAreTheModelServersToo() {
    BuildContext context = CONTEXT.withFile("/app/.fairing4j/fairing4j_model_server.py",
        ContextFile.ofText("import asyncio\nimport json\n"))
        .withFile("/app/predictor.py", ContextFile.ofText("import torch\nfrom model import Net\n"
            + "import sklearn.linear_model\n"));
    assertThat(ImportScanner.requiredModules(List.of("python3", "-u",
        "/app/.fairing4j/fairing4j_model_server.py", "--predictor", "/app/predictor.py"),
        context, "/app")).containsExactlyInAnyOrder("asyncio", "json", "torch", "sklearn",
        "numpy");
  }

  @Test
  void kserveIsNotNeededWhereTheModelServerStandsInForEveryModuleThePredictorImports() {
    List<String> serve = List.of("python3", "/app/.fairing4j/fairing4j_model_server.py",
        "--predictor", "/app/predictor.py");
    BuildContext standIn = BuildContext.empty().withFile("/app/predictor.py",
        ContextFile.ofText("from kserve import Model, ModelServer\nimport kserve.errors\n"
            + "from kserve.utils.utils import generate_uuid\nimport numpy\n"));
    assertThat(ImportScanner.requiredModules(serve, standIn, "/app"))
        .containsExactly("numpy");
    BuildContext storage = BuildContext.empty().withFile("/app/predictor.py",
        ContextFile.ofText("from kserve import Model\nfrom kserve.storage import Storage\n"));
    assertThat(ImportScanner.requiredModules(serve, storage, "/app")).containsExactly("kserve");
    // A training script that imports kserve needs it: nothing stands in there.
    assertThat(ImportScanner.requiredModules(List.of("python3", "/app/predictor.py"), standIn,
        "/app")).contains("kserve");
  }
}

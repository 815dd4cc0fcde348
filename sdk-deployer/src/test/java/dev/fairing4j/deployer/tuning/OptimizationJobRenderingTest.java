package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.DeployerSource;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Fixtures.CapturingCluster;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The OptimizationJob an experiment renders for Kubeflow Trainer: the CRD's names for the
 * objective, algorithm and space, the TrainJob every trial runs with the Trainer's
 * {@code KUBEFLOW_TRAINER_OPT_<NAME>} variables passed as arguments, and refusals for what the
 * CRD cannot say.
 */
class OptimizationJobRenderingTest {
  static Experiment experiment(DeployerSource deployer) {
    ImageBuilder builder = TuningFixtures.dryRunBuilder(Optional.empty());
    return Experiment.of("mnist-tune", Fairing.pipeline().progress(ProgressListener.NONE)
            .preprocessor(Fixtures::context).builder(builder).deployer(deployer))
        .parameter("lr", Search.logUniform(0.001, 0.1))
        .parameter("momentum", Search.uniform(0.5, 0.9))
        .parameter("batch-size", Search.intRange(32, 128, 32))
        .parameter("epochs", Search.intRange(1, 3))
        .parameter("optimizer", Search.choice("sgd", "adam"))
        .objective(Objective.maximize("accuracy"))
        .algorithm(Algorithm.random(4))
        .maxTrials(6).parallel(2)
        .backend(TuningBackend.OPTIMIZATION_JOB);
  }

  static Experiment trainJobExperiment(String namespace) {
    return experiment(Deployers.trainJob("mnist").namespace(namespace).args("--log-interval=5")
        .on(new CapturingCluster()));
  }

  @Test
  void theOptimizationJobSpeaksTheTrainersNamesAndPassesTheValuesAsArguments() {
    Map<String, Object> job = Fixtures.trainingObject(trainJobExperiment("team").dryRun());

    assertThat(job).containsEntry("apiVersion", "trainer.kubeflow.org/v1alpha1")
        .containsEntry("kind", "OptimizationJob");
    assertThat(Fixtures.<Object>at(job, "metadata", "namespace")).isEqualTo("team");
    Map<String, Object> spec = Fixtures.at(job, "spec");
    assertThat(spec).containsEntry("numTrials", 6).containsEntry("parallelTrials", 2)
        .containsEntry("objectives", List.of(Map.of("metric", "accuracy", "direction",
            "Maximize")))
        .containsEntry("searchAlgorithm", Map.of("random", Map.of("seed", 4)));
    assertThat(spec.get("parameters")).isEqualTo(List.of(
        Map.of("name", "batch-size", "searchSpace", Map.of("categorical", Map.of("choices",
            List.of("32", "64", "96", "128")))),
        Map.of("name", "epochs", "searchSpace", Map.of("uniform", Map.of("min", "1", "max", "3",
            "type", "Int"))),
        Map.of("name", "lr", "searchSpace", Map.of("logUniform", Map.of("min", "0.001",
            "max", "0.1", "type", "Float"))),
        Map.of("name", "momentum", "searchSpace", Map.of("uniform", Map.of("min", "0.5",
            "max", "0.9", "type", "Float"))),
        Map.of("name", "optimizer", "searchSpace", Map.of("categorical", Map.of("choices",
            List.of("sgd", "adam"))))));
    Map<String, Object> template = Fixtures.at(spec, "trainJobTemplate");
    assertThat(template).containsOnlyKeys("metadata", "spec");
    assertThat(Fixtures.<Map<String, Object>>at(template, "metadata")).doesNotContainKeys("name",
        "namespace");
    assertThat(Fixtures.<List<Object>>at(template, "spec", "trainer", "args")).containsExactly(
        "--log-interval=5", "--batch-size=$(KUBEFLOW_TRAINER_OPT_BATCH_SIZE)",
        "--epochs=$(KUBEFLOW_TRAINER_OPT_EPOCHS)", "--lr=$(KUBEFLOW_TRAINER_OPT_LR)",
        "--momentum=$(KUBEFLOW_TRAINER_OPT_MOMENTUM)",
        "--optimizer=$(KUBEFLOW_TRAINER_OPT_OPTIMIZER)");
    assertThat(String.valueOf(job)).doesNotContain("xtrialx");
  }

  @Test
  void inTheTrainersOwnStyleTheScriptReadsTheVariablesAndGetsNoArguments() {
    Map<String, Object> job = Fixtures.trainingObject(trainJobExperiment("team")
        .parameterStyle(ParameterStyle.TRAINER_ENV).dryRun());
    Map<String, Object> trainer = Fixtures.at(job, "spec", "trainJobTemplate", "spec",
        "trainer");
    assertThat(Fixtures.<List<Object>>at(trainer, "args")).containsExactly("--log-interval=5");
    assertThat(String.valueOf(trainer.get("env"))).as("the Trainer sets them, not the template")
        .doesNotContain("KUBEFLOW_TRAINER_OPT_");
  }

  @Test
  void aGridIsTheCrdsCategoricalPointsAndLogUniformHasNone() {
    Experiment grid = trainJobExperiment("team").searchSpace(Map.of(
        "lr", Search.uniform(0.1, 0.3).step(0.1), "optimizer", Search.choice("sgd", "adam")))
        .algorithm(Algorithm.grid()).maxTrials(50).parallel(100);
    Map<String, Object> spec = Fixtures.at(Fixtures.trainingObject(grid.dryRun()), "spec");
    assertThat(spec).containsEntry("numTrials", 6).containsEntry("parallelTrials", 6)
        .containsEntry("searchAlgorithm", Map.of("grid", Map.of()));
    assertThat(Fixtures.<Object>at(spec, "parameters", 0)).isEqualTo(Map.of("name", "lr",
        "searchSpace", Map.of("categorical", Map.of("choices", List.of("0.1", "0.2", "0.3")))));

    assertThatThrownBy(() -> grid.parameter("decay", Search.logUniform(0.01, 1)).dryRun())
        .hasMessageContaining("a log-uniform range has no grid");
  }

  @Test
  void whatTheCrdCannotSayIsRefusedByName() {
    Experiment experiment = trainJobExperiment("team");
    assertThatThrownBy(() -> experiment.objective(Objective.maximize("accuracy").goal(0.9))
        .dryRun()).isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(
            e.field()).isEqualTo("objective goal"));
    assertThatThrownBy(() -> experiment.maxFailedTrials(1).dryRun())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("maxFailedTrials"));
    assertThatThrownBy(() -> experiment.algorithm(Algorithm.katib("tpe", Map.of())).dryRun())
        .hasMessageContaining("not with Katib's 'tpe'");
    assertThatThrownBy(() -> experiment.earlyStopping(EarlyStopping.medianStop()).dryRun())
        .hasMessageContaining("an OptimizationJob has no early stopping");
    assertThatThrownBy(() -> experiment.maxTrials(101).dryRun())
        .hasMessageContaining("above an OptimizationJob's 100");
    assertThatThrownBy(() -> experiment.parameterStyle(ParameterStyle.ENV).dryRun())
        .hasMessageContaining("KUBEFLOW_TRAINER_OPT_<NAME>", "ParameterStyle.TRAINER_ENV");
    assertThatThrownBy(() -> experiment(Deployers.pyTorchJob("mnist").namespace("team")
        .on(new CapturingCluster())).dryRun())
        .hasMessageContaining("an OptimizationJob runs TrainJobs, and this pipeline renders a"
            + " PyTorchJob");
  }
}

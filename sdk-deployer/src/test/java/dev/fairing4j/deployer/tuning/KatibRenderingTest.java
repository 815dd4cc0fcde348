package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.DeployerSource;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Fixtures.CapturingCluster;
import dev.fairing4j.deployer.Mutators;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The Katib Experiment an experiment renders: Katib's names for the space, objective and
 * algorithm, the counts Katib's webhook accepts, the StdOut collector, and a trial template that
 * is the pipeline's own job with placeholders. The trial job Katib would create from it (the
 * placeholders replaced as Katib replaces them) passes the job kind's CRD schema.
 */
class KatibRenderingTest {
  private static final String PASSWORD = "s3cret-pull-password";

  private static ImageBuilder builder(boolean credentials) {
    return TuningFixtures.dryRunBuilder(credentials ? Optional.of(new RegistryCredentials(
        "registry.example.com", "robot", Secret.of(PASSWORD))) : Optional.empty());
  }

  private static Pipeline pipeline(DeployerSource deployer, boolean credentials) {
    return Fairing.pipeline().progress(ProgressListener.NONE).preprocessor(Fixtures::context)
        .builder(builder(credentials)).deployer(deployer);
  }

  private static Experiment experiment(DeployerSource deployer) {
    return Experiment.of("mnist-tune", pipeline(deployer, false))
        .parameter("lr", Search.logUniform(0.001, 0.1))
        .parameter("momentum", Search.uniform(0.5, 0.9))
        .parameter("batch-size", Search.intRange(32, 128, 32))
        .parameter("optimizer", Search.choice("sgd", "adam"))
        .objective(Objective.maximize("accuracy").goal(0.95))
        .algorithm(Algorithm.random(4))
        .maxTrials(6).parallel(2).maxFailedTrials(2)
        .backend(TuningBackend.KATIB);
  }

  private static Map<String, Object> experimentObject(String yaml) {
    return Fixtures.trainingObject(yaml);
  }

  @Test
  void thePyTorchJobExperimentSpeaksKatibsNamesAndCounts() {
    String yaml = experiment(Deployers.pyTorchJob("mnist").workers(1).namespace("team")
        .args("--epochs=1").on(new CapturingCluster())).dryRun();
    Map<String, Object> experiment = experimentObject(yaml);

    assertThat(Fixtures.parse(yaml)).hasSize(1);
    assertThat(experiment).containsEntry("apiVersion", "kubeflow.org/v1beta1")
        .containsEntry("kind", "Experiment");
    assertThat(Fixtures.<Object>at(experiment, "metadata", "name")).isEqualTo("mnist-tune");
    assertThat(Fixtures.<Object>at(experiment, "metadata", "namespace")).isEqualTo("team");
    Map<String, Object> spec = Fixtures.at(experiment, "spec");
    assertThat(spec).containsEntry("parallelTrialCount", 2).containsEntry("maxTrialCount", 6)
        .containsEntry("maxFailedTrialCount", 2)
        .containsEntry("metricsCollectorSpec", Map.of("source", Map.of("filter", Map.of(
            "metricsFormat", List.of("([\\w|-]+)\\s*=\\s*([+-]?\\d*(\\.\\d+)?([Ee][+-]?\\d+)?)",
                "{metricName: ([\\w|-]+), metricValue: ([+-]?\\d*(\\.\\d+)?([Ee][+-]?\\d+)?)}"))),
            "collector", Map.of("kind", "StdOut")));
    assertThat(spec.get("objective")).isEqualTo(Map.of("type", "maximize", "goal", 0.95,
        "objectiveMetricName", "accuracy", "metricStrategies", List.of(Map.of("name",
            "accuracy", "value", "max"))));
    assertThat(spec.get("algorithm")).isEqualTo(Map.of("algorithmName", "random",
        "algorithmSettings", List.of(Map.of("name", "random_state", "value", "4"))));
    assertThat(spec.get("parameters")).isEqualTo(List.of(
        Map.of("name", "batch-size", "parameterType", "int", "feasibleSpace", Map.of("min",
            "32", "max", "128", "step", "32", "distribution", "uniform")),
        Map.of("name", "lr", "parameterType", "double", "feasibleSpace", Map.of("min", "0.001",
            "max", "0.1", "distribution", "logUniform")),
        Map.of("name", "momentum", "parameterType", "double", "feasibleSpace", Map.of("min",
            "0.5", "max", "0.9", "distribution", "uniform")),
        Map.of("name", "optimizer", "parameterType", "categorical", "feasibleSpace",
            Map.of("list", List.of("sgd", "adam")))));

    Map<String, Object> template = Fixtures.at(spec, "trialTemplate");
    assertThat(template).containsEntry("primaryContainerName", "pytorch")
        .containsEntry("successCondition",
            "status.conditions.#(type==\"Succeeded\")#|#(status==\"True\")#")
        .containsEntry("failureCondition",
            "status.conditions.#(type==\"Failed\")#|#(status==\"True\")#")
        .containsEntry("primaryPodLabels", Map.of("training.kubeflow.org/job-role", "master"));
    assertThat(Fixtures.<List<Object>>at(template, "trialParameters")).containsExactly(
        Map.of("name", "batch-size", "reference", "batch-size"),
        Map.of("name", "lr", "reference", "lr"),
        Map.of("name", "momentum", "reference", "momentum"),
        Map.of("name", "optimizer", "reference", "optimizer"),
        Map.of("name", "trialName", "reference", "${trialSpec.Name}"));
    Map<String, Object> trialSpec = Fixtures.at(template, "trialSpec");
    assertThat(trialSpec).containsEntry("kind", "PyTorchJob");
    assertThat(Fixtures.<Map<String, Object>>at(trialSpec, "metadata"))
        .as("Katib names the trial job").doesNotContainKeys("name", "namespace");
    assertThat(Fixtures.<List<Object>>at(trialSpec, "spec", "pytorchReplicaSpecs", "Master",
        "template", "spec", "containers", 0, "args")).containsExactly("--epochs=1",
            "--batch-size=${trialParameters.batch-size}", "--lr=${trialParameters.lr}",
            "--momentum=${trialParameters.momentum}",
            "--optimizer=${trialParameters.optimizer}");
    assertThat(Fixtures.<Object>at(trialSpec, "metadata", "labels", "fairing4j.dev/job-name"))
        .isEqualTo("${trialParameters.trialName}");
    assertThat(yaml).doesNotContain("xtrialx");
  }

  @Test
  void theTrialJobKatibWouldCreateFromTheTemplatePassesThePyTorchJobSchema() {
    Map<String, Object> template = Fixtures.at(experimentObject(experiment(
        Deployers.pyTorchJob("mnist").workers(2).namespace("team")
            .mutate(Mutators.resources("1", "2Gi")).on(new CapturingCluster())).dryRun()),
        "spec", "trialTemplate", "trialSpec");
    Map<String, Object> trialJob = katibSubstitutes(template, Map.of("lr", "0.0123",
        "momentum", "0.61", "batch-size", "64", "optimizer", "adam",
        "trialName", "mnist-tune-x7k2m9qd"));

    assertThat(CrdSchemaValidator.load().validate(trialJob)).isEmpty();
    assertThat(String.valueOf(trialJob)).contains("--lr=0.0123", "--batch-size=64",
        "job-name=mnist-tune-x7k2m9qd").doesNotContain("${");
  }

  @Test
  void anXgboostJobTrialNamesItsContainerAndTheMastersPodsAndPassesItsSchema() {
    // Katib's default trial resources include XGBoostJob.v1.kubeflow.org; its metrics come from
    // the Master's xgboost container, which the operator labels job-role=master.
    Map<String, Object> template = Fixtures.at(experimentObject(experiment(
        Deployers.xgboostJob("mnist").workers(2).namespace("team").on(new CapturingCluster()))
        .dryRun()), "spec", "trialTemplate");
    assertThat(template).containsEntry("primaryContainerName", "xgboost")
        .containsEntry("successCondition",
            "status.conditions.#(type==\"Succeeded\")#|#(status==\"True\")#")
        .containsEntry("primaryPodLabels", Map.of("training.kubeflow.org/job-role", "master"));
    Map<String, Object> trialJob = katibSubstitutes(Fixtures.at(template, "trialSpec"),
        Map.of("lr", "0.0123", "momentum", "0.61", "batch-size", "64", "optimizer", "adam",
            "trialName", "mnist-tune-x7k2m9qd"));

    assertThat(trialJob).containsEntry("kind", "XGBoostJob");
    assertThat(CrdSchemaValidator.load().validate(trialJob)).isEmpty();
    assertThat(Fixtures.<List<Object>>at(trialJob, "spec", "xgbReplicaSpecs", "Worker",
        "template", "spec", "containers", 0, "args")).contains("--lr=0.0123",
            "--batch-size=64");
  }

  // What Katib does with a template: each ${trialParameters.x} replaced, name and namespace set.
  @SuppressWarnings("unchecked")
  private static Map<String, Object> katibSubstitutes(Map<String, Object> template,
      Map<String, String> values) {
    Map<String, Object> job = template;
    for (Map.Entry<String, String> value : values.entrySet()) {
      job = KatibRendering.replaced(job, "${trialParameters." + value.getKey() + "}",
          value.getValue());
    }
    ((Map<String, Object>) job.get("metadata")).put("name", values.get("trialName"));
    ((Map<String, Object>) job.get("metadata")).put("namespace", "team");
    return job;
  }

  @Test
  void parametersAsEnvironmentGoToEveryReplicasEnvironment() {
    Map<String, Object> spec = Fixtures.at(experimentObject(experiment(
        Deployers.tfJob("mnist").workers(2).namespace("team").on(new CapturingCluster()))
        .parameterStyle(ParameterStyle.ENV).dryRun()), "spec", "trialTemplate");
    assertThat(spec).containsEntry("primaryContainerName", "tensorflow");
    List<Map<String, Object>> env = Fixtures.at(spec, "trialSpec", "spec", "tfReplicaSpecs",
        "Worker", "template", "spec", "containers", 0, "env");
    assertThat(env).contains(Map.of("name", "LR", "value", "${trialParameters.lr}"),
        Map.of("name", "BATCH_SIZE", "value", "${trialParameters.batch-size}"));
  }

  @Test
  void aTrainJobAndABatchJobNameTheirOwnContainersAndConditions() {
    Map<String, Object> trainJob = Fixtures.at(experimentObject(experiment(
        Deployers.trainJob("mnist").namespace("team").on(new CapturingCluster())).dryRun()),
        "spec", "trialTemplate");
    assertThat(trainJob).containsEntry("primaryContainerName", "node")
        .containsEntry("successCondition",
            "status.conditions.#(type==\"Complete\")#|#(status==\"True\")#")
        .containsEntry("primaryPodLabels", Map.of("jobset.sigs.k8s.io/replicatedjob-name",
            "node", "batch.kubernetes.io/job-completion-index", "0"));
    assertThat(Fixtures.<Object>at(trainJob, "trialSpec", "kind")).isEqualTo("TrainJob");
    Map<String, Object> trainTrial = katibSubstitutes(Fixtures.at(trainJob, "trialSpec"),
        Map.of("lr", "0.0123", "momentum", "0.61", "batch-size", "64", "optimizer", "adam",
            "trialName", "mnist-tune-x7k2m9qd"));
    assertThat(CrdSchemaValidator.load().validate(trainTrial)).isEmpty();
    assertThat(String.valueOf(trainTrial)).contains("--lr=0.0123").doesNotContain("${");

    Map<String, Object> batch = Fixtures.at(experimentObject(experiment(
        Deployers.batchJob("mnist").namespace("team").on(new CapturingCluster())).dryRun()),
        "spec", "trialTemplate");
    assertThat(batch).containsEntry("primaryContainerName", "training")
        .doesNotContainKey("primaryPodLabels");
  }

  @Test
  void pullCredentialsBecomeOneSecretEveryTrialPullsWithNeverShown() {
    Experiment experiment = Experiment.of("mnist-tune", pipeline(Deployers.pyTorchJob("mnist")
            .namespace("team").on(new CapturingCluster()), true))
        .parameter("lr", Search.uniform(0.01, 0.1)).objective(Objective.minimize("loss"))
        .backend(TuningBackend.KATIB);
    String yaml = experiment.dryRun();
    List<Map<String, Object>> objects = Fixtures.parse(yaml);

    assertThat(objects).extracting(o -> o.get("kind")).containsExactly("Secret", "Experiment");
    assertThat(Fixtures.<Object>at(objects.get(0), "metadata", "name"))
        .isEqualTo("mnist-tune-registry");
    assertThat(Fixtures.<Object>at(objects.get(1), "spec", "trialTemplate", "trialSpec", "spec",
        "pytorchReplicaSpecs", "Master", "template", "spec", "imagePullSecrets"))
        .isEqualTo(List.of(Map.of("name", "mnist-tune-registry")));
    assertThat(yaml).doesNotContain(PASSWORD);
  }

  @Test
  void katibsAlgorithmsGridsAndNamesAreCheckedAsKatibsWebhookChecksThem() {
    Experiment experiment = experiment(Deployers.pyTorchJob("mnist").namespace("team")
        .on(new CapturingCluster()));
    Map<String, Object> tpe = Fixtures.at(experimentObject(experiment
        .algorithm(Algorithm.katib("tpe", Map.of("n_startup_trials", "5"))).dryRun()),
        "spec", "algorithm");
    assertThat(tpe).isEqualTo(Map.of("algorithmName", "tpe", "algorithmSettings",
        List.of(Map.of("name", "n_startup_trials", "value", "5"))));

    Map<String, Object> stopping = Fixtures.at(experimentObject(experiment
        .earlyStopping(EarlyStopping.medianStop().startStep(5)).dryRun()), "spec",
        "earlyStopping");
    assertThat(stopping).isEqualTo(Map.of("algorithmName", "medianstop", "algorithmSettings",
        List.of(Map.of("name", "min_trials_required", "value", "3"),
            Map.of("name", "start_step", "value", "5"))));

    Experiment grid = Experiment.of("grid", pipeline(Deployers.pyTorchJob("mnist")
            .namespace("team").on(new CapturingCluster()), false))
        .parameter("lr", Search.uniform(0.1, 0.3).step(0.1))
        .parameter("optimizer", Search.choice("sgd", "adam"))
        .objective(Objective.minimize("loss")).algorithm(Algorithm.grid()).maxTrials(50)
        .parallel(100).maxFailedTrials(80).backend(TuningBackend.KATIB);
    Map<String, Object> spec = Fixtures.at(experimentObject(grid.dryRun()), "spec");
    assertThat(spec).as("Katib refuses counts above the grid's size")
        .containsEntry("maxTrialCount", 6).containsEntry("parallelTrialCount", 6)
        .containsEntry("maxFailedTrialCount", 6);

    assertThatThrownBy(() -> Experiment.of("a".repeat(41), pipeline(Deployers.pyTorchJob("m")
        .on(new CapturingCluster()), false)).parameter("lr", Search.uniform(0, 1))
        .objective(Objective.minimize("loss")).backend(TuningBackend.KATIB).dryRun())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("experiment name")).hasMessageContaining("at most 40");
    assertThatThrownBy(() -> grid.parameter("momentum", Search.uniform(0, 1)).dryRun())
        .hasMessageContaining("grid needs the range's step");
  }

  @Test
  void runningOnKatibNeedsAKubernetesClusterAndSaysSoBeforeBuilding() {
    assertThatThrownBy(() -> experiment(Deployers.pyTorchJob("mnist")
        .on(new CapturingCluster())).run())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("backend")).hasMessageContaining("Katib runs on a Kubernetes cluster",
                "backend(TuningBackend.CLIENT)");
    assertThatThrownBy(() -> OptimizationJobRenderingTest.trainJobExperiment("team").run())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("backend")).hasMessageContaining("An OptimizationJob runs on a Kubernetes"
                + " cluster, and mnist is not deployed to one", "backend(TuningBackend.CLIENT)");
  }
}

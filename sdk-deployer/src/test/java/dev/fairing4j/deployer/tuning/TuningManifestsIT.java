package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures.CapturingCluster;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.internal.Yaml;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Katib Experiment an experiment renders, created with strict field validation on a real
 * kube-apiserver that holds Katib v0.19's CRDs, and read back whole; the trial job Katib would
 * create from its template (placeholders replaced as Katib replaces them) created strictly as a
 * PyTorchJob against the Kubeflow CRD; and the OptimizationJob created strictly against
 * Trainer's CRD, whose CEL rules the server evaluates. No Katib or Trainer controller runs here:
 * what Katib's webhook checks is checked in the JVM ({@link KatibRenderingTest}).
 */
class TuningManifestsIT {
  private static KubeApiServer server;
  private static String ns;

  @BeforeAll
  static void start() {
    server = KubeApiServer.shared();
    server.applyCrds(KubeApiServer.KATIB_CRDS);
    server.applyCrds(KubeApiServer.OPTIMIZATION_JOB_CRDS);
    ns = server.createNamespace("katib");
  }

  private static Experiment experiment() {
    ImageBuilder builder = TuningFixtures.dryRunBuilder(Optional.empty());
    return Experiment.of("mnist-tune", Fairing.pipeline().progress(ProgressListener.NONE)
            .preprocessor(Fixtures::context).builder(builder)
            .deployer(Deployers.pyTorchJob("mnist").workers(1).namespace(ns)
                .args("--epochs=1").mutate(Mutators.resources("1", "2Gi"))
                .on(new CapturingCluster())))
        .parameter("lr", Search.logUniform(0.001, 0.1))
        .parameter("momentum", Search.uniform(0.5, 0.9))
        .parameter("optimizer", Search.choice("sgd", "adam"))
        .objective(Objective.maximize("accuracy").goal(0.9))
        .algorithm(Algorithm.katib("bayesianoptimization", Map.of("random_state", "10")))
        .maxTrials(12).parallel(3).maxFailedTrials(3)
        .backend(TuningBackend.KATIB);
  }

  @Test
  void theExperimentIsCreatedStrictlyAndReadBackWhole() {
    List<Map<String, Object>> objects = Yaml.read(experiment().dryRun());
    Map<String, Object> experiment = objects.get(objects.size() - 1);

    Map<String, Object> stored = createdStrictly(experiment, "mnist-tune");
    assertThat(stored.get("spec")).isEqualTo(experiment.get("spec"));
  }

  @Test
  void recordedObjectivesAreTheExperimentsAdditionalMetricsAndAnOptimizationJobRefusesThem() {
    Experiment experiment = experiment().objectives(Objective.maximize("accuracy").goal(0.9),
        Objective.minimize("loss"), Objective.maximize("f1").strategy(MetricStrategy.LATEST));
    List<Map<String, Object>> objects = Yaml.read(experiment.dryRun()
        .replace("name: mnist-tune", "name: mnist-tune-more"));
    Map<String, Object> stored = createdStrictly(objects.get(objects.size() - 1),
        "mnist-tune-more");
    assertThat(Fixtures.<Object>at(stored, "spec", "objective")).isEqualTo(Map.of(
        "type", "maximize", "goal", 0.9, "objectiveMetricName", "accuracy",
        "additionalMetricNames", List.of("loss", "f1"),
        "metricStrategies", List.of(Map.of("name", "accuracy", "value", "max"),
            Map.of("name", "loss", "value", "min"), Map.of("name", "f1", "value", "latest"))));

    // The OptimizationJob's CRD takes one objective: what it would refuse is refused first.
    List<Map<String, Object>> jobs = Yaml.read(OptimizationJobRenderingTest
        .trainJobExperiment(ns).dryRun());
    Map<String, Object> job = jobs.get(jobs.size() - 1);
    Response refused = postedWith(job, "mnist-two", "objectives", List.of(Map.of("metric",
        "accuracy", "direction", "Maximize"), Map.of("metric", "loss", "direction", "Minimize")));
    assertThat(refused.status()).isEqualTo(422);
    assertThat(refused.body()).contains("spec.objectives", "must have at most 1 item");
    assertThatThrownBy(() -> OptimizationJobRenderingTest.trainJobExperiment(ns)
        .objectives(Objective.maximize("accuracy"), Objective.minimize("loss")).dryRun())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("objectives"))
        .hasMessageContaining("an OptimizationJob takes one objective");
  }

  @Test
  void theTrialJobKatibWouldCreateIsAcceptedStrictlyAsAPyTorchJob() {
    List<Map<String, Object>> objects = Yaml.read(experiment().dryRun());
    Map<String, Object> template = Fixtures.at(objects.get(objects.size() - 1), "spec",
        "trialTemplate", "trialSpec");
    Map<String, Object> trialJob = template;
    for (Map.Entry<String, String> value : Map.of("lr", "0.0123", "momentum", "0.61",
        "optimizer", "adam", "trialName", "mnist-tune-x7k2m9qd").entrySet()) {
      trialJob = KatibRendering.replaced(trialJob, "${trialParameters." + value.getKey() + "}",
          value.getValue());
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata = (Map<String, Object>) trialJob.get("metadata");
    metadata.put("name", "mnist-tune-x7k2m9qd");

    Response created = server.send("POST", "/apis/kubeflow.org/v1/namespaces/" + ns
        + "/pytorchjobs?fieldValidation=Strict", trialJob);
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    assertThat(created.body()).contains("--lr=0.0123", "--optimizer=adam",
        "\"fairing4j.dev/job-name\":\"mnist-tune-x7k2m9qd\"");
  }

  @Test
  void theOptimizationJobIsCreatedStrictlyAndTheCrdsRulesHold() {
    List<Map<String, Object>> objects = Yaml.read(OptimizationJobRenderingTest
        .trainJobExperiment(ns).dryRun());
    Map<String, Object> job = objects.get(objects.size() - 1);

    Response created = server.send("POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/"
        + ns + "/optimizationjobs?fieldValidation=Strict", job);
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    Map<String, Object> stored = server.request("GET", "/apis/trainer.kubeflow.org/v1alpha1/"
        + "namespaces/" + ns + "/optimizationjobs/mnist-tune", null);
    assertThat(Fixtures.<Object>at(stored, "spec", "trainJobTemplate", "spec", "trainer",
        "args")).isEqualTo(Fixtures.at(job, "spec", "trainJobTemplate", "spec", "trainer",
            "args"));

    // The server does hold the CRD's rules: a uniform range under a grid is refused.
    Response refused = postedWith(job, "mnist-grid", "searchAlgorithm",
        Map.of("grid", Map.of()));
    assertThat(refused.status()).isEqualTo(422);
    assertThat(refused.body()).contains("Grid search requires all parameters to be Categorical");
  }

  /** {@code job} named {@code name}, one spec field changed, as the server answered it. */
  private static Response postedWith(Map<String, Object> job, String name, String field,
      Object value) {
    Map<String, Object> changed = KatibRendering.replaced(job, "unused", "unused");
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) changed.get("spec");
    spec.put(field, value);
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata = (Map<String, Object>) changed.get("metadata");
    metadata.put("name", name);
    return server.send("POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns
        + "/optimizationjobs?fieldValidation=Strict", changed);
  }

  /** Creates a Katib Experiment with strict field validation and reads it back. */
  private static Map<String, Object> createdStrictly(Map<String, Object> experiment,
      String name) {
    Response created = server.send("POST", "/apis/kubeflow.org/v1beta1/namespaces/" + ns
        + "/experiments?fieldValidation=Strict", experiment);
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    return server.request("GET", "/apis/kubeflow.org/v1beta1/namespaces/" + ns
        + "/experiments/" + name, null);
  }
}

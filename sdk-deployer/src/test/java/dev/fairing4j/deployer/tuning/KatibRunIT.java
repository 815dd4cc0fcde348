package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * An experiment submitted to Katib through a real kube-apiserver, and followed. No Katib
 * controller runs here: the test plays Katib's writes (its Trials with their parameter
 * assignments, conditions and observations, the Experiment's end), a fault the real part cannot
 * be made to produce on demand; everything the SDK sends and reads is the real server's.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KatibRunIT {
  private static KubeApiServer server;
  private static String ns;
  private static KubernetesCluster cluster;
  private static final AtomicInteger BUILDS = new AtomicInteger();

  @BeforeAll
  static void start() {
    server = KubeApiServer.start();
    ns = server.createNamespace("katib");
    cluster = Clusters.kubernetes().kubeconfig(server.kubeconfig(User.SDK, ns));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static Experiment experiment() {
    ImageBuilder builder = TuningFixtures.countingBuilder(BUILDS);
    return Experiment.of("mnist-tune", Fairing.pipeline().progress(ProgressListener.NONE)
            .preprocessor(Fixtures::context).builder(builder)
            .deployer(Deployers.pyTorchJob("mnist").workers(1).namespace(ns).on(cluster)))
        .parameter("lr", Search.logUniform(0.001, 0.1))
        .parameter("momentum", Search.uniform(0.5, 0.9))
        .objectives(Objective.maximize("accuracy"), Objective.minimize("loss"))
        .algorithm(Algorithm.katib("tpe", Map.of()))
        .maxTrials(3).parallel(2)
        .backend(TuningBackend.KATIB);
  }

  @Test
  @Order(1)
  void withoutKatibTheInstallCommandComesAndNothingIsCreatedOrBuilt() {
    AuditLog.Mark mark = server.audit().mark();
    assertThatThrownBy(() -> experiment().run())
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED);
          assertThat(e.getMessage()).contains("Katib is missing", "katib-standalone?ref=v0.19.0",
              "kubectl get crd experiments.kubeflow.org", "backend(TuningBackend.CLIENT)");
        });
    assertThat(server.audit().since(mark, User.SDK)).noneMatch(r -> r.verb().equals("create"));
    assertThat(BUILDS).hasValue(0);
  }

  @Test
  @Order(2)
  void theExperimentIsSubmittedBuiltOnceAndFollowedAsKatibReportsIt() throws Exception {
    server.applyCrds(KubeApiServer.KATIB_CRDS);
    ExperimentRun run = experiment().run();
    assertThat(BUILDS).hasValue(1);
    Map<String, Object> created = server.request("GET", experiments() + "/mnist-tune", null);
    assertThat(Fixtures.<Object>at(created, "spec", "algorithm", "algorithmName"))
        .isEqualTo("tpe");
    assertThat(Fixtures.<Object>at(created, "spec", "objective", "additionalMetricNames"))
        .isEqualTo(List.of("loss"));
    assertThat(String.valueOf(Fixtures.<Object>at(created, "spec", "trialTemplate",
        "trialSpec"))).as("the built image, pinned").contains("@" + Fixtures.DIGEST)
        .doesNotContain(":planned");
    assertThatThrownBy(() -> experiment().run()).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("attach() follows it");

    // Katib's writes: two trials, one running, one succeeded with its observation.
    trial("mnist-tune-abc12345", "0.0123", "0.61", "Succeeded", "0.812", "0.79");
    trial("mnist-tune-def67890", "0.05", "0.7", "Running", null, null);
    awaitTrials(run, 2);
    ExperimentResults midway = run.results();
    assertThat(midway.phase()).isEqualTo(ExperimentPhase.RUNNING);
    assertThat(midway.trials()).extracting(Trial::name, Trial::status).containsExactly(
        org.assertj.core.groups.Tuple.tuple("mnist-tune-abc12345", TrialStatus.SUCCEEDED),
        org.assertj.core.groups.Tuple.tuple("mnist-tune-def67890", TrialStatus.RUNNING));
    assertThat(midway.trials().get(0).parameters()).containsExactly(
        Map.entry("lr", "0.0123"), Map.entry("momentum", "0.61"));
    assertThat(midway.trials().get(0).objective()).as("max, the objective's strategy")
        .contains(0.812);

    trial("mnist-tune-ghi13579", "0.002", "0.55", "Failed", null, null);
    status("trials", "mnist-tune-def67890", conditions("Succeeded"), observation("0.9", "0.85"));
    Map<String, Object> optimal = Map.of("bestTrialName", "mnist-tune-def67890",
        "parameterAssignments", List.of(Map.of("name", "lr", "value", "0.05"),
            Map.of("name", "momentum", "value", "0.7")), "observation", observation("0.9",
                "0.85"));
    status("experiments", "mnist-tune", List.of(condition("Succeeded",
        "ExperimentMaxTrialsReached", "Experiment has succeeded because max trial count has"
            + " reached")), null, optimal);
    ExperimentResults end = run.waitForCompletion(Duration.ofSeconds(30));
    assertThat(end.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(end.reason()).isEqualTo("ExperimentMaxTrialsReached: Experiment has succeeded"
        + " because max trial count has reached");
    assertThat(end.reportedBest()).as("Katib's currentOptimalTrial")
        .contains("mnist-tune-def67890");
    assertThat(end.best().orElseThrow().name()).isEqualTo("mnist-tune-def67890");
    assertThat(end.trial(3).orElseThrow().status()).isEqualTo(TrialStatus.FAILED);
    assertThat(end.trial(3).orElseThrow().message()).contains("TrialFailed: the job failed");
    assertThat(end.toString()).contains("experiment mnist-tune: Succeeded",
        "best: trial 2 accuracy=0.9 with lr=0.05, momentum=0.7");
    // Both objectives as Katib observed them, each by its strategy: accuracy's max, loss's min.
    assertThat(run.metrics(end.best().orElseThrow())).containsExactly(
        Map.entry("accuracy", 0.9), Map.entry("loss", 0.21));
    assertThat(run.metrics(end.trial(3).orElseThrow())).as("a failed trial observed nothing")
        .isEmpty();

    // After a restart: attached, the same results; then deleted with what it shared.
    try (ExperimentRun again = experiment().attach()) {
      assertThat(again.waitForCompletion(Duration.ofSeconds(30)).trials())
          .extracting(Trial::objective).isEqualTo(end.trials().stream()
              .map(Trial::objective).toList());
      again.delete();
    }
    assertThat(server.send("GET", experiments() + "/mnist-tune", null).status()).isEqualTo(404);
    assertThat(BUILDS).as("attach builds nothing").hasValue(1);
    run.close();
  }

  @Test
  @Order(3)
  void aPrivateImagesPullSecretIsCreatedWithTheRealPasswordWhileTheDryRunRedactsIt()
      throws Exception {
    // Seen reading the code: the objects submitted were parsed back from the dry run's text,
    // whose Secret says <redacted>: every trial's image pull would have been refused.
    RegistryCredentials alice = new RegistryCredentials("registry.example.com", "alice",
        Secret.of("s3cret-pw"));
    ImageBuilder counting = TuningFixtures.countingBuilder(new AtomicInteger());
    ImageBuilder privateBuilder = new ImageBuilder() {
      @Override
      public ImageRef plannedImage(dev.fairing4j.core.BuildContext context) {
        return counting.plannedImage(context);
      }

      @Override
      public ImageRef build(dev.fairing4j.core.BuildContext context, ProgressListener progress) {
        return counting.build(context, progress);
      }

      @Override
      public Optional<RegistryCredentials> pullCredentials() {
        return Optional.of(alice);
      }
    };
    Experiment experiment = Experiment.of("private-tune", Fairing.pipeline()
            .progress(ProgressListener.NONE).preprocessor(Fixtures::context)
            .builder(privateBuilder)
            .deployer(Deployers.pyTorchJob("mnist").workers(1).namespace(ns).on(cluster)))
        .parameter("lr", Search.logUniform(0.001, 0.1))
        .objective(Objective.maximize("accuracy"))
        .maxTrials(2).backend(TuningBackend.KATIB);

    assertThat(experiment.dryRun()).contains("<redacted>").doesNotContain("s3cret-pw");
    try (ExperimentRun run = experiment.run()) {
      Map<String, Object> secret = server.request("GET", "/api/v1/namespaces/" + ns
          + "/secrets/private-tune-registry", null);
      String config = new String(java.util.Base64.getDecoder().decode(String.valueOf(
          Fixtures.<Object>at(secret, "data", ".dockerconfigjson"))),
          java.nio.charset.StandardCharsets.UTF_8);
      assertThat(config).contains(java.util.Base64.getEncoder().encodeToString(
          "alice:s3cret-pw".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          .doesNotContain("redacted");
      Map<String, Object> created = server.request("GET", experiments() + "/private-tune",
          null);
      assertThat(String.valueOf(Fixtures.<Object>at(created, "spec", "trialTemplate",
          "trialSpec"))).contains("private-tune-registry");
      run.delete();
    }
  }

  private static String experiments() {
    return "/apis/kubeflow.org/v1beta1/namespaces/" + ns + "/experiments";
  }

  private static void awaitTrials(ExperimentRun run, int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (run.results().trials().size() < count && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(run.results().trials()).hasSize(count);
  }

  private static void trial(String name, String lr, String momentum, String state, String max,
      String latest) throws InterruptedException {
    Map<String, Object> trial = new LinkedHashMap<>();
    trial.put("apiVersion", "kubeflow.org/v1beta1");
    trial.put("kind", "Trial");
    trial.put("metadata", Map.of("name", name, "namespace", ns, "labels",
        Map.of("katib.kubeflow.org/experiment", "mnist-tune")));
    trial.put("spec", Map.of("parameterAssignments", List.of(
        Map.of("name", "lr", "value", lr), Map.of("name", "momentum", "value", momentum))));
    server.request("POST", "/apis/kubeflow.org/v1beta1/namespaces/" + ns + "/trials", trial);
    status("trials", name, conditions(state), max == null ? null : observation(max, latest));
    Thread.sleep(1100); // creation timestamps have seconds: the order is the creation order
  }

  private static List<Map<String, Object>> conditions(String state) {
    List<Map<String, Object>> conditions = new ArrayList<>(List.of(condition("Created",
        "TrialCreated", "Trial is created")));
    conditions.add(condition(state, "Trial" + state, state.equals("Failed") ? "the job failed"
        : "Trial is " + state.toLowerCase()));
    return conditions;
  }

  private static Map<String, Object> condition(String type, String reason, String message) {
    return Map.of("type", type, "status", "True", "reason", reason, "message", message);
  }

  private static Map<String, Object> observation(String max, String latest) {
    return Map.of("metrics", List.of(Map.of("name", "accuracy", "max", max, "min", "0.1",
        "latest", latest), Map.of("name", "loss", "max", "0.9", "min", "0.21", "latest",
            "0.3")));
  }

  private static void status(String plural, String name, List<Map<String, Object>> conditions,
      Map<String, Object> observation) {
    status(plural, name, conditions, observation, null);
  }

  private static void status(String plural, String name, List<Map<String, Object>> conditions,
      Map<String, Object> observation, Map<String, Object> optimal) {
    String path = "/apis/kubeflow.org/v1beta1/namespaces/" + ns + "/" + plural + "/" + name;
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("conditions", conditions);
    if (observation != null) {
      status.put("observation", observation);
    }
    if (optimal != null) {
      status.put("currentOptimalTrial", optimal);
    }
    TuningFixtures.putStatus(server, path, status);
  }
}

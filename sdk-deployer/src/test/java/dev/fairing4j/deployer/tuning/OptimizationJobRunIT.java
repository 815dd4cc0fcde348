package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * An experiment handed to Kubeflow Trainer as an OptimizationJob through a real kube-apiserver
 * holding the Trainer's CRDs, chosen by the default backend, and followed. No OptimizationJob
 * controller exists upstream yet (Trainer main has only its API): the test plays the Trainer's
 * writes as its proposal describes them (TrainJobs from the template with the
 * {@code KUBEFLOW_TRAINER_OPT_<NAME>} variables in the trainer's environment and an owner
 * reference, their conditions and {@code trainerStatus.metrics}, the OptimizationJob's
 * {@code Complete} condition and result), a part that cannot run here; everything the SDK sends
 * and reads is the real server's.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OptimizationJobRunIT {
  private static final String TRAINER = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";
  private static KubeApiServer server;
  private static String ns;
  private static KubernetesCluster cluster;
  private static final AtomicInteger BUILDS = new AtomicInteger();

  @BeforeAll
  static void start() {
    server = KubeApiServer.start();
    server.applyCrds(KubeApiServer.TRAINER_V2_CRDS);
    ns = server.createNamespace("optimize");
    cluster = Clusters.kubernetes().kubeconfig(server.kubeconfig(User.SDK, ns));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static Experiment experiment() {
    return experiment(ns);
  }

  private static Experiment experiment(String namespace) {
    ImageBuilder builder = TuningFixtures.countingBuilder(BUILDS);
    return Experiment.of("mnist-tune", Fairing.pipeline().progress(ProgressListener.NONE)
            .preprocessor(Fixtures::context).builder(builder)
            .deployer(Deployers.trainJob("mnist").namespace(namespace).on(cluster)))
        .parameter("lr", Search.logUniform(0.001, 0.1))
        .parameter("batch-size", Search.choice("32", "64"))
        .objective(Objective.maximize("accuracy"))
        .algorithm(Algorithm.random(7))
        .maxTrials(4).parallel(2);
  }

  @Test
  @Order(1)
  void withoutTheCrdTheDefaultRunsTheTrialsHereAndTheNamedBackendSaysWhatToInstall() {
    assertThat(experiment().dryRun()).startsWith("# backend AUTO chose CLIENT: the cluster"
        + " does not serve Trainer's OptimizationJob\n").contains("kind: TrainJob",
            "name: mnist-tune-1");
    assertThat(experiment().objective(Objective.maximize("accuracy").goal(0.9)).dryRun())
        .startsWith("# backend AUTO chose CLIENT: an OptimizationJob has no goal\n");

    AuditLog.Mark mark = server.audit().mark();
    assertThatThrownBy(() -> experiment().backend(TuningBackend.OPTIMIZATION_JOB).run())
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED);
          assertThat(e.getMessage()).contains("a Kubeflow Trainer newer than v2.3 is missing",
              "kubectl get crd optimizationjobs.trainer.kubeflow.org",
              "backend(TuningBackend.KATIB) or CLIENT");
        });
    assertThat(server.audit().since(mark, User.SDK)).noneMatch(r -> r.verb().equals("create"));
    assertThat(BUILDS).hasValue(0);
  }

  @Test
  @Order(2)
  void whereTheClusterServesItTheDefaultSubmitsAnOptimizationJobAndFollowsTheTrainer()
      throws Exception {
    server.applyCrds(KubeApiServer.OPTIMIZATION_JOB_CRDS);
    assertThat(experiment().dryRun()).startsWith("# backend AUTO chose OPTIMIZATION_JOB: the"
        + " cluster serves Trainer's OptimizationJob and the job is a TrainJob\n")
        .contains("kind: OptimizationJob");

    assertThatThrownBy(() -> experiment("no-such-namespace").run())
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.NAMESPACE_NOT_FOUND);
          assertThat(e.getMessage()).contains("namespace 'no-such-namespace' does not exist",
              "kubectl create namespace no-such-namespace");
        });
    assertThat(BUILDS).as("refused before the build").hasValue(0);

    ExperimentRun run = experiment().run();
    assertThat(BUILDS).hasValue(1);
    Map<String, Object> created = server.request("GET", optimizationJobs() + "/mnist-tune",
        null);
    Map<String, Object> template = Fixtures.at(created, "spec", "trainJobTemplate");
    assertThat(String.valueOf(template)).as("the built image, pinned")
        .contains("@" + Fixtures.DIGEST).doesNotContain(":planned");
    assertThat(Fixtures.<Object>at(template, "spec", "trainer", "args")).asList()
        .contains("--batch-size=$(KUBEFLOW_TRAINER_OPT_BATCH_SIZE)",
            "--lr=$(KUBEFLOW_TRAINER_OPT_LR)");
    assertThatThrownBy(() -> experiment().run()).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Trainer has an OptimizationJob mnist-tune in namespace " + ns
            + " already", "attach() follows it");

    // The Trainer's writes: its trials as TrainJobs from the template; a client-side trial of
    // an experiment of the same name, which is not one of them.
    String uid = Fixtures.at(created, "metadata", "uid");
    trainJob("mnist-tune-trial-a1", uid, template, "0.0123", "32");
    trainJob("mnist-tune-trial-b2", uid, template, "0.05", "64");
    trainJob("mnist-tune-1", null, template, "0.1", "32");
    status("mnist-tune-trial-a1", "Complete", "accuracy", "0.812");
    ExperimentResults midway = await(run, read -> read.trials().size() == 2
        && read.trials().get(0).status().isFinished());
    assertThat(midway.phase()).isEqualTo(ExperimentPhase.RUNNING);
    assertThat(midway.reason()).isEqualTo("1 of 4 trials ended, 1 running (Trainer)");
    assertThat(midway.trials()).extracting(Trial::name, Trial::status).containsExactly(
        tuple("mnist-tune-trial-a1", TrialStatus.SUCCEEDED),
        tuple("mnist-tune-trial-b2", TrialStatus.RUNNING));
    assertThat(midway.trials().get(0).parameters()).as("read back from the variables")
        .containsExactly(Map.entry("batch-size", "32"), Map.entry("lr", "0.0123"));
    assertThat(midway.trials().get(0).objective()).contains(0.812);

    trainJob("mnist-tune-trial-c3", uid, template, "0.002", "64");
    trainJob("mnist-tune-trial-d4", uid, template, "0.02", "32");
    status("mnist-tune-trial-b2", "Complete", "accuracy", "0.9");
    status("mnist-tune-trial-c3", "Failed", "accuracy", "0.2");
    status("mnist-tune-trial-d4", "Complete", "loss", "0.4");
    Map<String, Object> end = Map.of("conditions", List.of(condition("Complete",
        "MaxTrialsReached", "4 trials ended")), "result", Map.of("trainJobName",
            "mnist-tune-trial-b2", "parameters", List.of(Map.of("name", "lr", "value", "0.05"),
                Map.of("name", "batch-size", "value", "64"))));
    TuningFixtures.putStatus(server, optimizationJobs() + "/mnist-tune", end);
    ExperimentResults ended = run.waitForCompletion(Duration.ofSeconds(30));
    assertThat(ended.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(ended.reason()).isEqualTo("MaxTrialsReached: 4 trials ended");
    assertThat(ended.reportedBest()).contains("mnist-tune-trial-b2");
    assertThat(ended.best().orElseThrow().name()).isEqualTo("mnist-tune-trial-b2");
    assertThat(ended.trials()).extracting(Trial::status).containsExactly(TrialStatus.SUCCEEDED,
        TrialStatus.SUCCEEDED, TrialStatus.FAILED, TrialStatus.METRICS_UNAVAILABLE);
    assertThat(ended.trial(3).orElseThrow().message()).contains("JobFailed: the node failed");
    assertThat(ended.trial(4).orElseThrow().message().orElseThrow()).contains(
        "reported no numeric accuracy in status.trainerStatus.metrics (it reported [loss])",
        "KUBEFLOW_TRAINER_SERVER_URL");
    assertThat(ended.trial(1).orElseThrow().job()).as("its TrainJob, for logs")
        .hasValueSatisfying(job -> assertThat(job.kind()).isEqualTo("TrainJob"));
    run.close();

    // After a restart the default finds the OptimizationJob: the same results, nothing built.
    try (ExperimentRun again = experiment().attach()) {
      assertThat(again.waitForCompletion(Duration.ofSeconds(30)).trials())
          .extracting(Trial::objective).isEqualTo(ended.trials().stream()
              .map(Trial::objective).toList());
      again.delete();
    }
    assertThat(BUILDS).as("attach builds nothing").hasValue(1);
    assertThat(server.send("GET", optimizationJobs() + "/mnist-tune", null).status())
        .isEqualTo(404);
    for (String trial : List.of("a1", "b2", "c3", "d4")) {
      assertThat(server.send("GET", trainJobs() + "/mnist-tune-trial-" + trial, null).status())
          .as("trial %s deleted with it", trial).isEqualTo(404);
    }
    assertThat(server.send("GET", trainJobs() + "/mnist-tune-1", null).status())
        .as("another experiment's trial is left").isEqualTo(200);
  }

  private static String optimizationJobs() {
    return TRAINER + ns + "/optimizationjobs";
  }

  private static String trainJobs() {
    return TRAINER + ns + "/trainjobs";
  }

  /** The first results the follower read that {@code wanted} holds for (it polls every 3 s). */
  private static ExperimentResults await(ExperimentRun run,
      Predicate<ExperimentResults> wanted) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!wanted.test(run.results()) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(run.results()).matches(wanted, "read within 30 s");
    return run.results();
  }

  /**
   * A TrainJob as the Trainer makes one from the template, the values in its environment; with
   * no owner, as the SDK runs trial 1 of an experiment of that name.
   */
  @SuppressWarnings("unchecked")
  private static void trainJob(String name, String ownerUid,
      Map<String, Object> template, String lr, String batchSize) throws InterruptedException {
    Map<String, Object> metadata = new LinkedHashMap<>(Fixtures.<Map<String, Object>>at(template,
        "metadata"));
    Map<String, Object> labels = new LinkedHashMap<>((Map<String, Object>) metadata.get("labels"));
    if (ownerUid == null) {
      labels.put(Experiment.TRIAL_LABEL, "1"); // the SDK's own trial 1
    }
    metadata.put("labels", labels);
    metadata.put("name", name);
    metadata.put("namespace", ns);
    if (ownerUid != null) {
      metadata.put("ownerReferences", List.of(Map.of("apiVersion",
          "trainer.kubeflow.org/v1alpha1", "kind", "OptimizationJob", "name", "mnist-tune",
          "uid", ownerUid, "controller", true)));
    }
    Map<String, Object> spec = JsonTree.mutableCopy(Fixtures.at(template, "spec"));
    Map<String, Object> trainer = (Map<String, Object>) spec.get("trainer");
    List<Object> env = new ArrayList<>((List<Object>) trainer.getOrDefault("env", List.of()));
    env.add(Map.of("name", "KUBEFLOW_TRAINER_OPT_LR", "value", lr));
    env.add(Map.of("name", "KUBEFLOW_TRAINER_OPT_BATCH_SIZE", "value", batchSize));
    trainer.put("env", env);
    Map<String, Object> job = new LinkedHashMap<>();
    job.put("apiVersion", "trainer.kubeflow.org/v1alpha1");
    job.put("kind", "TrainJob");
    job.put("metadata", metadata);
    job.put("spec", spec);
    server.request("POST", trainJobs(), job);
    Thread.sleep(1100); // creation timestamps have seconds: the order is the creation order
  }

  private static void status(String name, String state, String metric, String value) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("conditions", List.of(condition(state, state.equals("Failed") ? "JobFailed"
        : "JobsCompleted", state.equals("Failed") ? "the node failed" : "jobs completed")));
    status.put("trainerStatus", Map.of("lastUpdatedTime", Instant.now().toString()
        .replaceFirst("\\.\\d+Z$", "Z"), "metrics", List.of(Map.of("name", metric, "value",
            value))));
    TuningFixtures.putStatus(server, trainJobs() + "/" + name, status);
  }

  private static Map<String, Object> condition(String type, String reason, String message) {
    return Map.of("type", type, "status", "True", "reason", reason, "message", message,
        "lastTransitionTime", Instant.now().toString().replaceFirst("\\.\\d+Z$", "Z"));
  }
}

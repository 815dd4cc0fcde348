package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.tuning.Experiment;
import dev.fairing4j.deployer.tuning.ExperimentPhase;
import dev.fairing4j.deployer.tuning.ExperimentResults;
import dev.fairing4j.deployer.tuning.ExperimentRun;
import dev.fairing4j.deployer.tuning.Trial;
import dev.fairing4j.deployer.tuning.TrialStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search over a TrainJob on the real Kubeflow Trainer v2.0.1 with the default backend
 * ({@code AUTO}): where the cluster does not serve Trainer's OptimizationJob the trials run from
 * this JVM, each a real TrainJob trained by the Trainer's torch runtime, each objective read from
 * its node's log; once the cluster serves the OptimizationJob CRD (applied here: no Trainer
 * release serves it yet, and no controller runs it), the same experiment is handed to it, created
 * strictly on the real API server with the Trainer's webhooks, followed, and deleted.
 */
@Tag(Tags.CLUSTER)
@Tag(Tags.TRAINER_V2)
@Timeout(value = 8, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTrainJobTuneIT {
  private static final String DATA = "fashion-mnist";
  private static final String CRD = "optimizationjobs.trainer.kubeflow.org";
  private static ClusterKit kit;
  private static String namespace;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
    namespace = kit.namespace();
    kit.hostPathClaim(namespace, DATA, Tools.fashionMnist().toString());
  }

  @AfterAll
  static void withoutTheCrd() {
    if (kit != null) {
      kit.run(List.of("delete", "crd", CRD, "--ignore-not-found"));
    }
  }

  private static Experiment experiment(String name) {
    FashionMnist training = new FashionMnist(name, 1, 600, 300, 1);
    Pipeline trial = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(FashionMnist.script())
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository(name)))
        .deployer(Deployers.trainJob(name).namespace(namespace)
            .args(training.trialArgs().toArray(String[]::new))
            .mutate(Mutators.pvc(DATA, FashionMnist.DATA_DIR).readOnly())
            .on(kit.cluster()));
    return FashionMnist.search(name, trial).maxTrials(2).parallel(2);
  }

  @Test
  @Order(1)
  void withoutTheOptimizationJobTheTrialsAreTrainJobsThisJvmRuns() {
    Experiment experiment = experiment("tj-tune");
    assertThat(experiment.dryRun()).startsWith("# backend AUTO chose CLIENT: the cluster does"
        + " not serve Trainer's OptimizationJob\n");

    ExperimentResults results;
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofMinutes(5));
    }
    System.out.println("ClusterTrainJobTuneIT:\n" + results);
    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(results.trials()).extracting(Trial::parameters).isEqualTo(experiment.plan());
    assertThat(kit.names("trainjobs", namespace, Experiment.EXPERIMENT_LABEL + "=tj-tune"))
        .containsExactlyInAnyOrder("tj-tune-1", "tj-tune-2");
    for (Trial t : results.trials()) {
      assertThat(t.status()).as(t.name()).isEqualTo(TrialStatus.SUCCEEDED);
      double printed = t.job().orElseThrow().logs().snapshot().stream().map(LogLine::text)
          .filter(l -> l.startsWith("accuracy="))
          .mapToDouble(l -> Double.parseDouble(l.substring("accuracy=".length()))).max()
          .orElseThrow();
      assertThat(t.objective()).as(t.name()).contains(printed);
      assertThat(kit.json("get", "trainjob", "-n", namespace, t.name()).path("spec")
          .path("trainer").path("args").toString())
          .contains("--lr=" + t.parameters().get("lr"),
              "--momentum=" + t.parameters().get("momentum"));
    }
    experiment.attach().delete();
    assertThat(kit.names("trainjobs", namespace, Experiment.EXPERIMENT_LABEL + "=tj-tune"))
        .isEmpty();
  }

  @Test
  @Order(2)
  void whereTheClusterServesTheOptimizationJobTheSearchIsHandedToTheTrainer(@TempDir Path dir)
      throws IOException {
    Path crd = dir.resolve("optimizationjobs.yaml");
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(
        "kubeflow/trainer-next/crds/trainer.kubeflow.org_optimizationjobs.yaml")) {
      Files.copy(in, crd);
    }
    kit.kubectl("apply", "--server-side", "-f", crd.toString());
    kit.waitEstablished(CRD);

    Experiment experiment = experiment("tj-opt");
    assertThat(experiment.dryRun()).startsWith("# backend AUTO chose OPTIMIZATION_JOB: the"
        + " cluster serves Trainer's OptimizationJob and the job is a TrainJob\n");
    try (ExperimentRun run = experiment.run()) {
      assertThat(kit.json("get", "optimizationjob", "-n", namespace, "tj-opt").path("spec")
          .path("trainJobTemplate").path("spec").path("trainer").path("args").toString())
          .contains("--lr=$(KUBEFLOW_TRAINER_OPT_LR)",
              "--momentum=$(KUBEFLOW_TRAINER_OPT_MOMENTUM)");
      assertThat(run.results().phase()).isEqualTo(ExperimentPhase.RUNNING);
      assertThat(run.results().trials()).as("no controller runs it").isEmpty();
      run.delete();
    }
    assertThat(kit.run(List.of("get", "optimizationjob", "-n", namespace, "tj-opt")).output())
        .contains("NotFound");
  }
}

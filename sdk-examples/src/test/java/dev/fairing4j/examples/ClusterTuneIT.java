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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seed 004's search client-side on the real cluster: the image built and pushed once to the
 * kit's registry, every trial a real PyTorchJob (a Master and a Worker training with gloo) that
 * the Kubeflow operator runs, each trial's objective read from its Master's log through the API
 * server; then attached again as after a restart (nothing rerun, nothing built) and deleted.
 */
@Tag(Tags.CLUSTER)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ClusterTuneIT {
  private static final String DATA = "fashion-mnist";
  private static ClusterKit kit;
  private static String namespace;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
    namespace = kit.namespace();
    kit.hostPathClaim(namespace, DATA, Tools.fashionMnist().toString());
  }

  @Test
  void fourTrialsTwoAtATimeEachARealPyTorchJobThenAttachedAndDeleted() {
    String name = "fmnist-tune";
    FashionMnist training = new FashionMnist("fmnist", 1, 600, 300, 1);
    Pipeline trial = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(FashionMnist.script())
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository(name)))
        .deployer(Deployers.pyTorchJob("fmnist").workers(1).namespace(namespace)
            .args(training.trialArgs().toArray(String[]::new))
            .mutate(Mutators.pvc(DATA, FashionMnist.DATA_DIR).readOnly())
            .on(kit.cluster()));
    Experiment experiment = FashionMnist.search(name, trial).maxTrials(4).parallel(2);

    ExperimentResults results;
    try (ExperimentRun run = experiment.run()) {
      results = run.waitForCompletion(Duration.ofMinutes(8));
    }
    System.out.println("ClusterTuneIT:\n" + results);

    assertThat(results.phase()).isEqualTo(ExperimentPhase.SUCCEEDED);
    assertThat(results.trials()).extracting(Trial::status).containsOnly(TrialStatus.SUCCEEDED);
    assertThat(results.trials()).extracting(Trial::parameters).isEqualTo(experiment.plan());
    assertThat(kit.names("pytorchjobs", namespace, Experiment.EXPERIMENT_LABEL + "=" + name))
        .containsExactlyInAnyOrder("fmnist-tune-1", "fmnist-tune-2", "fmnist-tune-3",
            "fmnist-tune-4");
    for (Trial t : results.trials()) {
      List<String> master = t.job().orElseThrow().logs().snapshot().stream()
          .filter(l -> l.replica().equals("master-0")).map(LogLine::text).toList();
      double printed = master.stream().filter(l -> l.startsWith("accuracy="))
          .mapToDouble(l -> Double.parseDouble(l.substring("accuracy=".length()))).max()
          .orElseThrow();
      assertThat(t.objective()).as(t.name()).contains(printed);
      assertThat(master).contains("Using distributed PyTorch with gloo backend, rank 0 of 2");
      assertThat(kit.json("get", "pytorchjob", "-n", namespace, t.name()).path("spec")
          .path("pytorchReplicaSpecs").path("Master").path("template").path("spec")
          .path("containers").path(0).path("args").toString())
          .contains("--lr=" + t.parameters().get("lr"),
              "--momentum=" + t.parameters().get("momentum"));
    }

    // As after a kernel restart: the same cell again, attached; nothing is rerun.
    try (ExperimentRun again = experiment.attach()) {
      ExperimentResults resumed = again.waitForCompletion(Duration.ofMinutes(1));
      assertThat(resumed.trials()).extracting(Trial::objective)
          .isEqualTo(results.trials().stream().map(Trial::objective).toList());
      again.delete();
    }
    assertThat(kit.names("pytorchjobs", namespace, Experiment.EXPERIMENT_LABEL + "=" + name))
        .isEmpty();
  }
}

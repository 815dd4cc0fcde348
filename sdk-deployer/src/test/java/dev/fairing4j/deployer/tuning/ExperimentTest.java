package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.Deployer;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an experiment refuses before anything is prepared, built or sent, and the job each trial
 * runs: the deployer's job renamed, the parameters after its own arguments or in its
 * environment, the experiment and trial labels on it.
 */
class ExperimentTest {
  @TempDir Path state;

  private final AtomicInteger prepared = new AtomicInteger();

  private Pipeline pipeline() {
    Preprocessor counting = () -> {
      prepared.incrementAndGet();
      return BuildContext.empty().withFile("/app/train.py", ContextFile.ofText("print(1)\n"))
          .withCommand(List.of("python", "/app/train.py"));
    };
    return Fairing.pipeline().progress(ProgressListener.NONE).preprocessor(counting)
        .deployer(Deployers.pyTorchJob("mnist").workers(1).args("--epochs=1")
            .on(Clusters.local().stateDir(state)));
  }

  private Experiment experiment() {
    return Experiment.of("tune", pipeline()).parameter("lr", Search.logUniform(0.001, 0.1))
        .parameter("momentum", Search.uniform(0.5, 0.9)).objective(Objective.maximize("accuracy"))
        .maxTrials(3);
  }

  @Test
  void withoutAnObjectiveOrParametersNothingIsPrepared() {
    assertThatThrownBy(() -> Experiment.of("tune", pipeline())
        .parameter("lr", Search.uniform(0, 1)).run())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("objective"))
        .hasMessageContaining("add .objective(Objective.maximize(\"accuracy\"))");
    assertThatThrownBy(() -> Experiment.of("tune", pipeline())
        .objective(Objective.minimize("loss")).run())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("searchSpace"))
        .hasMessageContaining(".parameter(\"lr\", Search.logUniform(0.001, 0.1))");
    assertThatThrownBy(() -> experiment().algorithm(Algorithm.grid()).run())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("searchSpace lr"));
    assertThat(prepared).as("nothing prepared").hasValue(0);
  }

  @Test
  void objectivesNameEachMetricOnceAndOnlyTheOptimizedOneHasAGoal() {
    assertThatThrownBy(() -> experiment().objectives(Objective.maximize("accuracy"),
        Objective.minimize("loss"), Objective.minimize("accuracy")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("objectives"))
        .hasMessageContaining("name accuracy twice");
    assertThatThrownBy(() -> experiment().objectives(Objective.maximize("accuracy"),
        Objective.minimize("loss").goal(0.1)))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("objectives"))
        .hasMessageContaining("the recorded objective loss has a goal")
        .hasMessageContaining("optimize loss by naming it first");
    assertThat(prepared).as("nothing prepared").hasValue(0);
  }

  @Test
  void badSettingsAreRefusedInTheCellThatWroteThem() {
    assertThatThrownBy(() -> Experiment.of("Tune_1", pipeline()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("experiment name"));
    assertThatThrownBy(() -> experiment().parallel(0)).hasMessageContaining("parallel");
    assertThatThrownBy(() -> experiment().maxTrials(0)).hasMessageContaining("maxTrials");
    assertThatThrownBy(() -> experiment().maxFailedTrials(-1))
        .hasMessageContaining("maxFailedTrials");
    assertThatThrownBy(() -> experiment().parameter("1st", Search.uniform(0, 1)))
        .hasMessageContaining("'1st' cannot be a parameter name");
  }

  @Test
  void aTrialNameTooLongForItsPodsIsRefusedBeforeAnythingIsBuilt() {
    String name = "a".repeat(54);
    assertThatThrownBy(() -> Experiment.of(name, pipeline()).parameter("lr",
        Search.uniform(0, 1)).objective(Objective.maximize("accuracy")).maxTrials(10).run())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(name + "-10");
    assertThat(prepared).as("prepared only for the dry run").hasValue(1);
  }

  @Test
  void eachTrialRunsTheDeployersJobRenamedWithItsParametersAfterTheDeployersArguments() {
    Experiment experiment = experiment();
    Map<String, String> first = experiment.plan().get(0);
    String yaml = pipeline().variant(experiment.variant(1, first)).dryRun();

    assertThat(yaml).contains("name: tune-1", "fairing4j.dev/experiment: tune",
        "fairing4j.dev/trial: \"1\"");
    assertThat(yaml).doesNotContain("name: mnist");
    assertThat(yaml).containsSubsequence("- \"--epochs=1\"", "- \"--lr=" + first.get("lr"),
        "- \"--momentum=" + first.get("momentum"));

    String env = pipeline().variant(experiment.parameterStyle(ParameterStyle.ENV)
        .variant(2, first)).dryRun();
    assertThat(env).contains("name: tune-2", "name: LR", "value: \"" + first.get("lr") + "\"",
        "name: MOMENTUM").doesNotContain("--lr=");
  }

  @Test
  void aDeployerOfYourOwnThatCannotVaryItsJobIsNamed() {
    Deployer own = new Deployer() {
      @Override
      public String jobName() {
        return "own";
      }

      @Override
      public void validate(BuildContext context) {}

      @Override
      public String render(BuildContext context, Optional<ImageRef> image) {
        return "";
      }

      @Override
      public TrainingJob deploy(BuildContext context, Optional<ImageRef> image,
          ProgressListener progress) {
        throw new AssertionError("not submitted");
      }
    };
    assertThatThrownBy(() -> Experiment.of("tune", pipeline().deployer(own))
        .parameter("lr", Search.uniform(0, 1)).objective(Objective.maximize("accuracy")).run())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("deployer"))
        .hasMessageContaining("own", "cannot run variants of its job", "Deployer.variant");
  }

  @Test
  void withoutABuilderTheMessageNamesTheJobTheUserWroteNotATrialsVariant() {
    Pipeline noBuilder = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Fixtures::context)
        .deployer(Deployers.pyTorchJob("mnist").workers(1).on(new Fixtures.CapturingCluster()));
    for (TuningBackend backend : TuningBackend.values()) {
      assertThatThrownBy(() -> Experiment.of("tune", noBuilder).parameter("lr",
          Search.uniform(0, 1)).objective(Objective.maximize("accuracy")).backend(backend)
          .run())
          .as(backend.name())
          .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
              .isEqualTo("builder"))
          .message().contains("is not set, and mnist runs an image").doesNotContain("tune-");
    }
  }

  @Test
  void theDefaultRunsAPyTorchJobSearchHereWithoutAskingTheCluster() {
    // Port 1 answers nothing: the choice is made from the job's kind, before any request.
    Path kubeconfig = KubernetesApiFixture.writeKubeconfig(state.resolve("kubeconfig"),
        "https://127.0.0.1:1", "team");
    Pipeline onKubernetes = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Fixtures::context).builder(TuningFixtures.dryRunBuilder(Optional.empty()))
        .deployer(Deployers.pyTorchJob("mnist").workers(1)
            .on(Clusters.kubernetes().kubeconfig(kubeconfig)));
    assertThat(Experiment.of("tune", onKubernetes).parameter("lr", Search.uniform(0, 1))
        .objective(Objective.maximize("accuracy")).dryRun()).startsWith("# backend AUTO chose"
            + " CLIENT: an OptimizationJob runs TrainJobs, and this pipeline does not"
            + " (PyTorchJob)\n").contains("kind: PyTorchJob", "name: tune-1");
  }
}

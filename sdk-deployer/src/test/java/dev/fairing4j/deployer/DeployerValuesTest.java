package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.DeploymentPlan;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Deployers as values: immutable, comparable, printable, and consistent between render and deploy. */
class DeployerValuesTest {
  @Test
  void everyCallReturnsANewDeployerAndLeavesTheOldOneAlone() {
    PyTorchJobDeployer base = Deployers.pyTorchJob("mnist");

    PyTorchJobDeployer changed = base.workers(2).namespace("kubeflow").env("A", "1")
        .mutate(Mutators.gpus(1)).uniqueName();

    assertThat(base).isEqualTo(Deployers.pyTorchJob("mnist"));
    assertThat(base.workers()).isZero();
    assertThat(base.options().mutators()).isEmpty();
    assertThat(base.options().env()).isEmpty();
    assertThat(changed.workers()).isEqualTo(2);
    assertThat(changed.options().namespace()).contains("kubeflow");
    assertThat(changed).isNotEqualTo(base);
  }

  @Test
  void rerunningACellDoesNotPileUpState() {
    PyTorchJobDeployer base = Deployers.pyTorchJob("mnist");
    PodMutator gpus = Mutators.gpus(1);

    PyTorchJobDeployer first = base.mutate(gpus).args("--epochs=1");
    PyTorchJobDeployer second = base.mutate(gpus).args("--epochs=1");

    assertThat(second).isEqualTo(first);
    assertThat(second.options().mutators()).hasSize(1);
    assertThat(first.args("--epochs=2").options().args()).containsExactly("--epochs=2");
  }

  @Test
  void toStringIsShort() {
    var cluster = new Fixtures.CapturingCluster();

    assertThat(Deployers.pyTorchJob("mnist").workers(2).namespace("kubeflow")
        .mutate(Mutators.gpus(1)).on(cluster))
        .hasToString("PyTorchJob[mnist, ns=kubeflow, mutators=1, on=capturing, master=1,"
            + " workers=2]");
    assertThat(Deployers.tfJob("tf").chief(1).ps(1).workers(2))
        .hasToString("TFJob[tf, chief=1, ps=1, worker=2]");
    assertThat(Deployers.batchJob("ddp").replicas(4).uniqueName())
        .hasToString("Job[ddp-*, replicas=4 (indexed)]");
    assertThat(Deployers.pyTorchJob("e").elastic(1, 3)).hasToString(
        "PyTorchJob[e, master=1, workers=0, elastic=1..3]");
  }

  @Test
  void aClusterThatRunsContextsDirectlyNeedsNoImage() {
    var local = new Fixtures.CapturingCluster(true);
    PyTorchJobDeployer deployer = Deployers.pyTorchJob("mnist").workers(1).on(local);

    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.empty());
    deployer.asDeployer().deploy(Fixtures.context(), Optional.empty(), ProgressListener.NONE);

    assertThat(Deployers.pyTorchJob("mnist").asDeployer().needsImage()).isTrue();
    assertThat(Deployers.pyTorchJob("mnist").on(new Fixtures.CapturingCluster())
        .asDeployer().needsImage())
        .isTrue();
    assertThat(deployer.asDeployer().needsImage()).isFalse();
    CrdSchemaValidator.load().assertAllValid(yaml);
    assertThat(Manifests.trainingContainers(Fixtures.trainingObject(yaml)))
        .allSatisfy(container -> assertThat(container.get("image"))
            .isEqualTo("fairing4j.local/context:" + Fixtures.context().contentTag()));
    assertThat(local.submitted).singleElement().satisfies(job ->
        assertThat(job.objects()).isEqualTo(Fixtures.parse(yaml)));
  }

  @Test
  void replaceExistingReachesTheCluster() {
    var cluster = new Fixtures.CapturingCluster();

    Deployers.batchJob("mnist").replaceExisting().on(cluster)
        .asDeployer().deploy(Fixtures.context(),
        Optional.of(Fixtures.image()), ProgressListener.NONE);

    assertThat(cluster.options).singleElement().satisfies(options ->
        assertThat(options.replaceExisting()).isTrue());
  }

  @Test
  void uniqueNameDrawsAFreshSuffixForEverySubmission() {
    var cluster = new Fixtures.CapturingCluster();
    var deployer = Deployers.batchJob("ddp").replicas(2).uniqueName().on(cluster);

    deployer.asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
        ProgressListener.NONE);
    deployer.asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
        ProgressListener.NONE);

    String first = cluster.submitted.get(0).name();
    String second = cluster.submitted.get(1).name();
    assertThat(first).matches("ddp-[a-z0-9]{5}").isNotEqualTo(second);
    assertThat(second).matches("ddp-[a-z0-9]{5}");
    // Every name inside follows the suffixed name: Service, subdomain, MASTER_ADDR.
    List<Map<String, Object>> objects = cluster.submitted.get(0).objects();
    assertThat(Fixtures.<Object>at(objects.get(0), "metadata", "name")).isEqualTo(first);
    Map<String, Object> job = objects.get(1);
    assertThat(Fixtures.<Object>at(job, "spec", "template", "spec", "subdomain"))
        .isEqualTo(first);
    assertThat(Manifests.env(Manifests.trainingContainers(job).get(0), "MASTER_ADDR"))
        .containsEntry("value", first + "-0." + first);
  }

  @Test
  void aPlanSubmitsTheJobItCheckedAndRenderedItsNameAndAWhatAMutatorCopiedOfTheImage() {
    var cluster = new Fixtures.CapturingCluster();
    // A mutator that reads the image (a sidecar of the same image does) sees it at plan time,
    // before the image exists: what it copied gets the image too.
    var deployer = Deployers.batchJob("ddp").replicas(2).uniqueName().on(cluster)
        .mutate(template -> template.putEnv("TRAINING_IMAGE",
            String.valueOf(template.container().get("image"))));

    DeploymentPlan plan = deployer.asDeployer().plan(Fixtures.context());
    String yaml = plan.render(Optional.of(Fixtures.image()));
    plan.deploy(Optional.of(Fixtures.image()), ProgressListener.NONE);

    assertThat(plan.render(Optional.of(Fixtures.image()))).isEqualTo(yaml);
    RenderedJob submitted = cluster.submitted.get(0);
    assertThat(submitted.objects()).isEqualTo(Fixtures.parse(yaml));
    assertThat(yaml).contains("name: " + submitted.name() + "\n");
    Map<String, Object> container = Manifests.trainingContainers(submitted.trainingObject())
        .get(0);
    assertThat(container.get("image")).isEqualTo(Fixtures.image().reference());
    assertThat(Manifests.env(container, "TRAINING_IMAGE"))
        .containsEntry("value", Fixtures.image().reference());
    assertThat(yaml).doesNotContain("planned.invalid");
    // Each plan is a job of its own: a uniqueName() job gets a fresh name from the next.
    assertThat(deployer.asDeployer().plan(Fixtures.context()).render(Optional.of(
        Fixtures.image()))).isNotEqualTo(yaml);
  }

  @Test
  void aPlanForAClusterThatRunsImagesNeedsOneToRenderOrSubmit() {
    DeploymentPlan plan = Deployers.pyTorchJob("mnist").on(new Fixtures.CapturingCluster())
        .asDeployer().plan(Fixtures.context());

    assertThatThrownBy(() -> plan.render(Optional.empty()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("builder"))
        .hasMessageContaining("no image was given for mnist");
    assertThatThrownBy(() -> plan.serve(Optional.of(Fixtures.image()), ProgressListener.NONE))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mnist runs a training job, not an endpoint");
  }

  @Test
  void theRunIdFollowsTheCodeAndTheJobButNotTheImage() {
    BuildContext other = Fixtures.context().withFile("/app/extra.py",
        ContextFile.ofText("x = 1\n"));
    var deployer = Deployers.pyTorchJob("mnist");

    String id = runId(deployer.asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image())));

    assertThat(runId(deployer.asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image()))))
        .isEqualTo(id);
    assertThat(runId(deployer.asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image().withDigest("sha256:" + "0".repeat(64))))))
        .isEqualTo(id);
    assertThat(runId(deployer.asDeployer().render(other,
        Optional.of(Fixtures.image())))).isNotEqualTo(id);
    assertThat(runId(Deployers.pyTorchJob("mnist2").asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image())))).isNotEqualTo(id);
  }

  @Test
  void aDryRunDiffersFromTheRunOnlyInTheImage() {
    var cluster = new Fixtures.CapturingCluster();
    var deployer = Deployers.tfJob("tf").chief(1).workers(2).mutate(Mutators.gpus(1))
        .on(cluster);
    var planned = Fixtures.image().withTag(Fixtures.context().contentTag());
    var planTagOnly = new dev.fairing4j.core.ImageRef(planned.registry(), planned.repository(),
        planned.tag(), Optional.empty());

    String dryRun = deployer.asDeployer().render(Fixtures.context(), Optional.of(planTagOnly));
    deployer.asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
        ProgressListener.NONE);

    String submitted = dev.fairing4j.deployer.job.internal.Yaml.write(cluster.submitted.get(0)
        .objects());
    assertThat(dryRun).contains("image: registry.example.com/team/mnist:"
        + Fixtures.context().contentTag());
    assertThat(submitted).contains("image: registry.example.com/team/mnist@" + Fixtures.DIGEST);
    assertThat(submitted.replace(Fixtures.image().reference(), "IMAGE"))
        .isEqualTo(dryRun.replace(planTagOnly.reference(), "IMAGE"));
  }

  private static String runId(String yaml) {
    return Fixtures.at(Fixtures.trainingObject(yaml), "metadata", "labels",
        "fairing4j.dev/run-id");
  }
}

package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.DockerfileImageBuilder;
import dev.fairing4j.builder.DockerfileTool;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Dockerfile with RUN (pip installing a wheel from a local directory, with no index) built by
 * buildah with no daemon, pushed to a real registry and run on {@code Clusters.podman()}; a
 * one-line change to the script rebuilds from its COPY, the RUN step coming from the layer cache;
 * a RUN that fails reports its step and its output.
 */
@Timeout(600)
class DockerfileBuildahIT {
  @RegisterExtension static final RegistryExtension REGISTRY = RegistryExtension.plain();

  private static String base;
  @TempDir Path project;
  @TempDir Path state;
  @TempDir Path volumes;

  @BeforeAll
  static void baseImage() throws IOException {
    Tools.require("buildah", "buildah");
    Tools.require("podman", "podman");
    Tools.require("runc", "runc");
    base = PythonBaseImage.pushTo(REGISTRY.hostPort() + "/base");
  }

  private Path project(String script, String run) throws IOException {
    return DebianPipWheel.project(project, "hello from the wheel", script, run, "python3");
  }


  private DockerfileImageBuilder builder(Path dockerfile) {
    return Builders.dockerfile(dockerfile).buildArg("BASE", base)
        .pushTo(REGISTRY.hostPort() + "/team/buildah");
  }

  private static List<String> notes(List<ProgressEvent> events) {
    return events.stream().filter(ProgressEvent.Note.class::isInstance)
        .map(e -> ((ProgressEvent.Note) e).message()).toList();
  }

  @Test
  void aRunStepIsBuiltByBuildahRunsOnPodmanAndAScriptEditRebuildsFromItsCopy()
      throws IOException {
    Path dockerfile = project("""
        import logging, sys
        import fairing_probe
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
        logging.info("probe: %s", fairing_probe.GREETING)
        """, "RUN [\"python3\", \"PIP\", \"install\", \"--no-index\", \"--find-links\","
        + " \"/wheels\", \"--target\", \"/opt/deps\", \"fairing-probe\"]");
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();

    long started = System.nanoTime();
    TrainingJob job = Fairing.pipeline().progress(events::add)
        .preprocessor(Preprocessors.python(project.resolve("train.py")))
        .builder(builder(dockerfile))
        .deployer(Deployers.batchJob("from-buildah")
            .on(Clusters.podman().stateDir(state).volumesDir(volumes)))
        .run();
    long firstMillis = (System.nanoTime() - started) / 1_000_000;
    try {
      assertThat(job.waitForCompletion(Duration.ofMinutes(2)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      assertThat(job.logs().snapshot()).extracting(l -> l.text())
          .contains("probe: hello from the wheel");
    } finally {
      job.delete();
    }
    assertThat(notes(events)).anyMatch(n -> n.startsWith("Dockerfile: built by buildah (line 4:"
        + " RUN [\"python3\""))
        .anyMatch(n -> n.matches("buildah: STEP 3/6: RUN .*"))
        .anyMatch(n -> n.startsWith("pushed " + REGISTRY.hostPort() + "/team/buildah@sha256:"));

    Files.writeString(project.resolve("train.py"), "print('edited')\n");
    List<ProgressEvent> again = new CopyOnWriteArrayList<>();
    started = System.nanoTime();
    BuildContext edited = Preprocessors.python(project.resolve("train.py")).prepare();
    ImageRef image = builder(dockerfile).build(edited, again::add);
    long editMillis = (System.nanoTime() - started) / 1_000_000;
    List<String> steps = notes(again);
    int run = indexOf(steps, "buildah: STEP 3/6: RUN");
    int copy = indexOf(steps, "buildah: STEP 5/6: COPY train.py");
    assertThat(steps.subList(run, copy)).as("the RUN step comes from the cache: %s", steps)
        .anyMatch(n -> n.startsWith("buildah: --> Using cache"));
    assertThat(steps.subList(copy, steps.size())).as("the edited COPY is rebuilt: %s", steps)
        .noneMatch(n -> n.startsWith("buildah: --> Using cache"));
    assertThat(image.tag()).isEqualTo(builder(dockerfile).plannedImage(edited).tag());
    System.out.printf("bench.dockerfile.buildah_first_run_ms=%d script_edit_rebuild_ms=%d%n",
        firstMillis, editMillis);
  }

  @Test
  void aFailingRunStepReportsItsStepAndOutputAndLeavesNoContainer() throws Exception {
    Path dockerfile = project("print('never')\n", "RUN [\"python3\", \"-c\", \"import sys;"
        + " print('no such package: torch==99'); sys.exit(3)\"]");
    List<String> before = workingContainers();

    assertThatThrownBy(() -> builder(dockerfile).build(Preprocessors.python(
        project.resolve("train.py")).prepare(), e -> { }))
        .isInstanceOf(FairingException.class)
        .hasMessageContaining("buildah failed to build Dockerfile at STEP 3/6: RUN")
        .hasMessageContaining("no such package: torch==99")
        .hasMessageContaining("the RUN command failed in the image");
    assertThat(workingContainers()).as("the failed step's working container is removed, as on"
        + " success").isEqualTo(before);
  }

  /** The working containers in the user's buildah storage, as `buildah containers` lists them. */
  private static List<String> workingContainers() throws Exception {
    Process list = new ProcessBuilder(Tools.require("buildah", "buildah").toString(),
        "containers", "--quiet").redirectErrorStream(true).start();
    String out = new String(list.getInputStream().readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertThat(list.waitFor()).as(out).isZero();
    return out.lines().filter(l -> !l.isBlank()).sorted().toList();
  }

  @Test
  void podmanChosenByNameBuildsAndWritesATarThatSkopeoReads() throws Exception {
    Path dockerfile = project("print('tar')\n", "RUN [\"python3\", \"-c\", \"open('/built',"
        + " 'w').write('yes')\"]");
    Path tar = project.resolve("image.tar");
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();

    builder(dockerfile).tool(DockerfileTool.PODMAN).toTar(tar)
        .build(Preprocessors.python(project.resolve("train.py")).prepare(), events::add);

    assertThat(notes(events)).anyMatch(n -> n.startsWith("Dockerfile: built by podman"))
        .anyMatch(n -> n.startsWith("podman: STEP 3/6: RUN"))
        .anyMatch(n -> n.startsWith("wrote " + tar));
    String inspected = PythonBaseImage.run(List.of(Tools.require("skopeo", "skopeo").toString(),
        "inspect", "--config", "docker-archive:" + tar));
    assertThat(inspected).contains("PYTHONPATH=/opt/deps").contains("/app/train.py");
  }

  @Test
  void buildahPullsAndPushesWithTheBuildersCredentialsAndCaOverVerifiedTls() throws Exception {
    String password = "Corr3ct-h0rse-buildah";
    try (RegistryExtension secure = RegistryExtension.tlsWithAuth("alice", password)) {
      secure.start();
      Path ca = secure.caCertificatePem().orElseThrow();
      Builders.scratch().pushTo(secure.hostPort() + "/base/tls:1")
          .credentials("alice", Secret.of(password)).trustedCertificates(ca)
          .baseLayerCache(project.resolve("cache"))
          .build(BuildContext.empty().withFile("/etc/base-release",
              ContextFile.ofText("tls base\n")), ProgressListener.NONE);
      Files.writeString(project.resolve("train.py"), "print('tls')\n");
      Path dockerfile = Files.writeString(project.resolve("Dockerfile"), "FROM "
          + secure.hostPort() + "/base/tls:1\nCOPY train.py /app/\n");
      List<ProgressEvent> events = new CopyOnWriteArrayList<>();

      ImageRef image = Builders.dockerfile(dockerfile).tool(DockerfileTool.BUILDAH)
          .pushTo(secure.hostPort() + "/team/buildah-tls").credentials("alice",
              Secret.of(password)).trustedCertificates(ca)
          .build(Preprocessors.python(project.resolve("train.py")).prepare(), events::add);

      assertThat(image.reference()).startsWith(secure.hostPort() + "/team/buildah-tls@sha256:");
      assertThat(secure.requests()).anyMatch(r -> r.method().equals("PUT")
          && r.path().contains("/team/buildah-tls/manifests/"));
      assertThat(notes(events)).noneMatch(n -> n.contains(password));
      assertThatThrownBy(() -> Builders.dockerfile(dockerfile).tool(DockerfileTool.BUILDAH)
          .pushTo(secure.hostPort() + "/team/buildah-tls").credentials("alice",
              Secret.of("wr0ng-" + password)).trustedCertificates(ca)
          .build(Preprocessors.python(project.resolve("train.py")).prepare(),
              ProgressListener.NONE))
          .isInstanceOf(FairingException.class).hasMessageNotContaining(password);
    }
  }

  private static int indexOf(List<String> notes, String prefix) {
    for (int i = 0; i < notes.size(); i++) {
      if (notes.get(i).startsWith(prefix)) {
        return i;
      }
    }
    throw new AssertionError("no note starts with " + prefix + ": " + notes);
  }
}

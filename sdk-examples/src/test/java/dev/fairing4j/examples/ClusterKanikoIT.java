package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.InClusterImageBuilder;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds inside the kit, in real Kaniko pods ({@code ../shared/kaniko}, preloaded by the kit):
 * the context streamed to the pod's stdin through the attach API, a RUN step that pip-installs a
 * wheel with no index, the image pushed to the registry as pods reach it and run as a Job; a
 * Python context on a base, through a generated Dockerfile; a RUN that fails reports its step; a
 * build past its timeout is stopped; an executor image the cluster cannot pull is named with how
 * to mirror it. After each build no build pod or Secret is left.
 */
@Tag(Tags.CLUSTER)
class ClusterKanikoIT {
  private static ClusterKit kit;
  private static String executor;
  @TempDir Path dir;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
    executor = kit.podRegistry() + "/kaniko-executor:v1.23.2";
  }

  @AfterEach
  void nothingOfTheBuildIsLeft() {
    String selector = "app.kubernetes.io/component=image-build";
    assertThat(kit.names("pods", kit.namespace(), selector)).isEmpty();
    assertThat(kit.names("secrets", kit.namespace(), selector)).isEmpty();
  }

  private InClusterImageBuilder builder(Path dockerfile, String repository) {
    return Builders.inCluster(kit.cluster().namespace(kit.namespace())).dockerfile(dockerfile)
        // the base as pods reach it: the pod's 127.0.0.1 is its own
        .buildArg("BASE", kit.base().reference().replace(ClusterKit.REGISTRY,
            kit.podRegistry()))
        .pushTo(kit.podRegistry() + "/fairing4j-it/" + repository)
        .executorImage(executor).insecureRegistry().timeout(Duration.ofMinutes(3));
  }

  private Path project(String run) throws IOException {
    return DebianPipWheel.project(dir, "installed in the cluster", """
        import logging, sys
        import fairing_probe
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
        logging.info("probe=%s", fairing_probe.GREETING)
        """, run, "python");
  }

  @Test
  void aRunDockerfileIsBuiltByKanikoFromTheContextOnItsStdinAndRunsAsAJob()
      throws IOException {
    Path dockerfile = project("RUN [\"python\", \"PIP\", \"install\", \"--no-index\","
        + " \"--find-links\", \"/wheels\", \"--target\", \"/opt/deps\", \"fairing-probe\"]");
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();

    long started = System.nanoTime();
    TrainingJob job = Fairing.pipeline().progress(events::add)
        .preprocessor(Preprocessors.python(dir.resolve("train.py")))
        .builder(builder(dockerfile, "kaniko").credentials("ci", Secret.of("kit-registry")))
        .deployer(Deployers.batchJob("kaniko-built").namespace(kit.namespace())
            .replaceExisting().on(kit.cluster()))
        .run();
    long submitMillis = (System.nanoTime() - started) / 1_000_000;
    try {
      assertThat(job.waitForCompletion(Duration.ofMinutes(3)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      assertThat(job.logs().snapshot()).extracting(LogLine::text)
          .contains("probe=installed in the cluster");
    } finally {
      job.delete();
    }
    List<String> notes = events.stream().filter(ProgressEvent.Note.class::isInstance)
        .map(e -> ((ProgressEvent.Note) e).message()).toList();
    assertThat(notes).anyMatch(n -> n.startsWith("kaniko: pod " + kit.namespace()
        + "/fairing4j-build-"))
        .anyMatch(n -> n.startsWith("kaniko: sent the context ("))
        .anyMatch(n -> n.matches("kaniko: INFO\\[\\d+\\] RUN \\[\"python\", \"/wheels/.*"))
        .anyMatch(n -> n.startsWith("pushed " + kit.podRegistry()
            + "/fairing4j-it/kaniko@sha256:"));
    assertThat(notes).noneMatch(n -> n.contains("kit-registry"));
    System.out.printf("bench.kaniko.build_push_submit_ms=%d%n", submitMillis);
  }

  @Test
  void aPythonContextOnABaseIsBuiltInTheClusterAsJibWouldMakeIt() {
    String podBase = kit.base().reference().replace(ClusterKit.REGISTRY, kit.podRegistry());
    TrainingJob job = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.source("train.py", """
            import os, sys
            print("from a generated Dockerfile in", os.getcwd(), "with", sys.argv[1:])
            """).args("--epochs", "2"))
        .builder(Builders.inCluster(kit.cluster().namespace(kit.namespace())).base(podBase)
            .pushTo(kit.podRegistry() + "/fairing4j-it/kaniko-base").executorImage(executor)
            .insecureRegistry())
        .deployer(Deployers.batchJob("kaniko-base").namespace(kit.namespace())
            .replaceExisting().on(kit.cluster()))
        .run();
    try {
      assertThat(job.waitForCompletion(Duration.ofMinutes(3)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      assertThat(job.logs().snapshot()).extracting(LogLine::text)
          .contains("from a generated Dockerfile in /app with ['--epochs', '2']");
    } finally {
      job.delete();
    }
  }

  @Test
  void aFailingRunReportsItsStepAndTheLastLinesAndLeavesNothing() throws IOException {
    Path dockerfile = project("RUN [\"python\", \"-c\", \"import sys; print('no such package:"
        + " torch==99'); sys.exit(3)\"]");

    assertThatThrownBy(() -> builder(dockerfile, "kaniko-fails").build(Preprocessors.python(
        dir.resolve("train.py")).prepare(), ProgressListener.NONE))
        .isInstanceOf(FairingException.class)
        .hasMessageContaining("build image in the cluster failed: kaniko exited with 3 at RUN"
            + " [\"python\", \"-c\"")
        .hasMessageContaining("no such package: torch==99")
        .hasMessageContaining("the RUN command failed in the image");
  }

  @Test
  void aBuildPastItsTimeoutIsStoppedAndLeavesNothing() throws IOException {
    Path dockerfile = project("RUN [\"python\", \"-c\", \"import time; time.sleep(120)\"]");

    long started = System.nanoTime();
    assertThatThrownBy(() -> builder(dockerfile, "kaniko-slow").timeout(Duration.ofSeconds(15))
        .build(Preprocessors.python(dir.resolve("train.py")).prepare(), ProgressListener.NONE))
        .isInstanceOf(FairingException.class)
        .hasMessageContaining("did not finish within 15 s");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(75));
  }

  @Test
  void anExecutorImageTheClusterCannotPullIsNamedWithHowToMirrorIt() throws IOException {
    Path dockerfile = project("RUN [\"python\", \"-c\", \"print(1)\"]");

    assertThatThrownBy(() -> builder(dockerfile, "kaniko-missing")
        .executorImage(kit.podRegistry() + "/no-such-executor:v0")
        .build(Preprocessors.python(dir.resolve("train.py")).prepare(), ProgressListener.NONE))
        .isInstanceOf(FairingException.class)
        .hasMessageContaining("cannot pull the Kaniko executor image " + kit.podRegistry()
            + "/no-such-executor:v0")
        .hasMessageContaining("skopeo copy");
  }
}

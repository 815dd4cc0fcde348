package dev.fairing4j.deployer.local.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.deployer.local.internal.PodmanSubmitter;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import dev.fairing4j.deployer.local.internal.settings.PodmanSettings;
import dev.fairing4j.deployer.local.internal.settings.Retention;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The podman command lines the podman cluster runs, and how it finds podman. */
class PodmanCommandTest {
  private static final ReplicaId MASTER = new ReplicaId("Master", 0, "podjob-master-0",
      "master-0", "pytorch");
  private static final String IMAGE = "127.0.0.1:5000/app@sha256:" + "a".repeat(64);

  @TempDir Path state;

  @Test
  void aReplicaIsAPodmanRunOfItsImageOnTheHostNetworkWithItsEnvAndVolumes() throws IOException {
    PodmanLauncher launcher = new PodmanLauncher(tool(), state.resolve("jobs/default/podjob"));
    Map<String, String> env = new LinkedHashMap<>();
    env.put("MASTER_ADDR", "127.0.0.1");
    env.put("RANK", "0");
    List<LaunchSpec.Bind> binds = List.of(
        new LaunchSpec.Bind(Path.of("/vol/claim"), "/opt/models", false, false),
        new LaunchSpec.Bind(Path.of("/vol/cm"), "/etc/config", true, false),
        new LaunchSpec.Bind(null, "/cache", false, true));

    List<String> run = PodmanSubmitter.runArgs(launcher.containerName(MASTER.podName()), MASTER,
        launcher, container(List.of("python", "-u", "/app/train.py")), env,
        List.of("python", "-u", "/app/train.py"), List.of("--epochs=1"), binds, List.of());
    String line = String.join(" ", run);

    assertThat(launcher.containerName("podjob-master-0"))
        .matches("podjob-master-0-[0-9a-f]{8}");
    assertThat(run.subList(0, 4)).containsExactly("run", "--rm", "--pull", "never");
    assertThat(line).contains("--network host",
        "--name " + launcher.containerName("podjob-master-0"), "--hostname podjob-master-0",
        "--label fairing4j.dev/job=" + launcher.jobId(), "--workdir /app",
        "--env MASTER_ADDR=127.0.0.1", "--env RANK=0",
        "--volume /vol/claim:/opt/models ", "--volume /vol/cm:/etc/config:ro",
        "--tmpfs /cache");
    assertThat(run.subList(run.size() - 4, run.size())).containsExactly("--entrypoint",
        "[\"python\",\"-u\",\"/app/train.py\"]", IMAGE, "--epochs=1");
  }

  @Test
  void withoutACommandTheImagesEntrypointRunsWithTheArgs() throws IOException {
    PodmanLauncher launcher = new PodmanLauncher(tool(), state.resolve("jobs/default/podjob"));

    List<String> run = PodmanSubmitter.runArgs("n", MASTER, launcher, container(List.of()),
        Map.of(), List.of(), List.of("--epochs=1"), List.of(), List.of());

    assertThat(run).doesNotContain("--entrypoint");
    assertThat(run.subList(run.size() - 2, run.size())).containsExactly(IMAGE, "--epochs=1");
  }

  @Test
  void containerNamesDifferBetweenStateDirectoriesAndStayStableWithin() throws IOException {
    PodmanTool tool = tool();
    String one = new PodmanLauncher(tool, state.resolve("a/jobs/default/podjob"))
        .containerName("podjob-master-0");

    assertThat(new PodmanLauncher(tool, state.resolve("a/jobs/default/podjob"))
        .containerName("podjob-master-0")).isEqualTo(one);
    assertThat(new PodmanLauncher(tool, state.resolve("b/jobs/default/podjob"))
        .containerName("podjob-master-0")).isNotEqualTo(one);
  }

  @Test
  void theSdksContainersConfSelectsRuncAndLowersUlimits() throws IOException {
    PodmanTool tool = PodmanTool.resolve(settings(Optional.empty()));

    assertThat(tool.conf()).isEqualTo(state.resolve("containers.conf"));
    assertThat(Files.readString(tool.conf())).contains("runtime = \"runc\"",
        "default_ulimits = [\"nofile=20000:20000\", \"nproc=4096:4096\"]");
    assertThat(tool.env()).containsEntry("CONTAINERS_CONF", tool.conf().toString());
    assertThat(tool.removeByLabelCommand("fairing4j.dev/job=x")).containsSubsequence(
        "CONTAINERS_CONF=" + tool.conf(), "rm", "--filter", "label=fairing4j.dev/job=x");
  }

  @Test
  void aMissingPodmanSaysWhatToInstall() {
    PodmanSettings settings = new PodmanSettings(PodmanSettings.defaults().local(),
        Optional.empty(), Optional.of(state.resolve("no-podman")));

    assertThatThrownBy(() -> PodmanTool.resolve(settings))
        .isInstanceOfSatisfying(FairingException.class, e ->
            assertThat(e.hint()).hasValueSatisfying(h ->
                assertThat(h).contains("apt-get install podman runc")));
  }

  @Test
  void imagesAreQualifiedAndOnlyLoopbackRegistriesArePlainHttp() {
    assertThat(ImageRef.parse("python:3.11").toString())
        .isEqualTo("docker.io/library/python:3.11");
    assertThat(ImageRef.parse("team/app:1").toString()).isEqualTo("docker.io/team/app:1");
    assertThat(ImageRef.parse(IMAGE).toString()).isEqualTo(IMAGE);
    assertThat(ImageRef.parse("ghcr.io/o/app").toString()).isEqualTo("ghcr.io/o/app:latest");
    assertThat(ImageRef.parse(IMAGE).isLoopback()).isTrue();
    assertThat(ImageRef.parse("localhost:5000/app").isLoopback()).isTrue();
    assertThat(ImageRef.parse("[::1]:5000/app").isLoopback()).isTrue();
    assertThat(ImageRef.parse("registry.example.com/app").isLoopback()).isFalse();
    assertThat(ImageRef.parse("127.0.0.1.nip.io/app").isLoopback()).isFalse();
    assertThat(ImageRef.parse("python:3.11").isLoopback()).isFalse();
  }

  private PodmanTool tool() throws IOException {
    Path conf = Files.writeString(state.resolve("my.conf"), "[engine]\n");
    return PodmanTool.resolve(settings(Optional.of(conf)));
  }

  private PodmanSettings settings(Optional<Path> conf) {
    return new PodmanSettings(new LocalSettings(state, state.resolve("volumes"), Map.of(),
        Optional.empty(), false, true, false, true,
        Retention.DEFAULT, false, java.util.Set.of()), conf,
        Optional.of(Path.of("/bin/true")));
  }

  private static JobPlan.Container container(List<String> command) {
    return new JobPlan.Container("pytorch", command, List.of("--epochs=1"), List.of(), List.of(),
        Optional.of("/app"), List.of(), 0, Map.of(), Map.of(), IMAGE);
  }
}

package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.Layer;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.TestWheels;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a replica finds: the staged context (files inside and outside the working directory),
 * requirements installed with {@code pip install --target}, the chosen interpreter; and what
 * submit refuses: a module no interpreter has, a name that is taken.
 */
@Timeout(90)
class LocalClusterStagingIT extends LocalClusterTestBase {
  @TempDir
  Path wheels;

  @Test
  void requirementsAreInstalledIntoTheRunDirectoryAndImportable() throws IOException {
    TestWheels.write(wheels, "hello_pkg", "hello from wheel");
    BuildContext context = BuildContext.empty()
        .withFile("/app/requirements.txt", ContextFile.ofText("--no-index\n--find-links "
            + wheels + "\nhello-pkg==1.0\n").inLayer(Layer.REQUIREMENTS))
        .withFile("/app/main.py", ContextFile.ofText(
            "import hello_pkg\nprint(hello_pkg.GREETING)\n"))
        .withCommand(List.of("python", "/app/main.py"));
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();

    TrainingJob job = cluster().submit(job("req"), context, SubmitOptions.DEFAULT, events::add);

    assertThat(job.waitForCompletion(Duration.ofSeconds(60)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    assertThat(job.logs().snapshot()).extracting(l -> l.text()).contains("hello from wheel");
    assertThat(state.resolve("jobs/default/req/run/.deps/hello_pkg/__init__.py")).isRegularFile();
    assertThat(events).anyMatch(e -> e instanceof ProgressEvent.StepFinished f
        && f.step().startsWith("install requirements"));
    assertThat(events).anyMatch(e -> e instanceof ProgressEvent.Note n
        && n.message().contains("requirements.txt is to provide hello_pkg"));
  }

  @Test
  void filesOutsideTheWorkingDirectoryAppearAtTheirContainerPathsOnly() {
    BuildContext context = BuildContext.empty()
        .withFile("/opt/fairing-extra/data.txt", ContextFile.ofText("outside\n"))
        .withFile("/app/main.py", ContextFile.ofText(String.join("\n",
            "import os",
            "print(open('/opt/fairing-extra/data.txt').read().strip())",
            "open('/app/out.txt', 'w').write('written')",
            "print('cwd=' + os.getcwd())",
            "")))
        .withCommand(List.of("python", "/app/main.py"));

    TrainingJob job = cluster().submit(job("files"), context, SubmitOptions.DEFAULT,
        ProgressListener.NONE);

    assertThat(job.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    assertThat(job.logs().snapshot()).extracting(l -> l.text()).contains("outside", "cwd=/app");
    assertThat(state.resolve("jobs/default/files/run/out.txt")).hasContent("written");
    assertThat(Path.of("/opt/fairing-extra")).doesNotExist();
    assertThat(Path.of("/app")).doesNotExist();
  }

  @Test
  void withoutSandboxRunsInTheRunDirectoryWithCommandPathsMapped() {
    BuildContext context = BuildContext.empty()
        .withFile("/app/data.txt", ContextFile.ofText("relative read\n"))
        .withFile("/app/main.py", ContextFile.ofText(String.join("\n",
            "import os",
            "print(open('data.txt').read().strip())",
            "print('cwd=' + os.getcwd())",
            "")))
        .withCommand(List.of("python", "/app/main.py"));

    TrainingJob job = cluster().withoutSandbox().submit(job("plain"), context,
        SubmitOptions.DEFAULT, ProgressListener.NONE);

    assertThat(job.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    assertThat(job.logs().snapshot()).extracting(l -> l.text()).contains("relative read",
        "cwd=" + state.resolve("jobs/default/plain/run").toAbsolutePath());
  }

  @Test
  void aModuleNoInterpreterHasFailsTheSubmitNamingItAndLeavesNothingBehind() {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText(
            "import os\nimport torch\nimport nonexistent_module_xyz\n"))
        .withCommand(List.of("python", "/app/main.py"));

    FairingException error = catchThrowableOfType(FairingException.class,
        () -> cluster().submit(job("nomod"), context,
        SubmitOptions.DEFAULT, ProgressListener.NONE));

    assertThat(error.getMessage()).contains("nonexistent_module_xyz", "/usr/bin/python3")
        // torch is importable with /usr/bin/python3: not named as what no interpreter has
        .contains("can import nonexistent_module_xyz (needed:");
    // No guessed Debian package: python3-nonexistent_module_xyz does not exist; say how to look.
    assertThat(error.hint().orElseThrow()).contains("pip install nonexistent_module_xyz",
        "LocalCluster.python(Path)", "apt-cache search --names-only 'python3-nonexistent")
        .doesNotContain("apt-get install");
    assertThat(state.resolve("jobs/default/nomod")).doesNotExist();
  }

  @Test
  void aTakenNameIsRefusedUnlessReplacing() throws IOException {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText("print('run')\n"))
        .withCommand(List.of("python", "/app/main.py"));
    LocalCluster cluster = cluster();
    cluster.submit(job("dup"), context, SubmitOptions.DEFAULT, ProgressListener.NONE)
        .waitForCompletion(Duration.ofSeconds(30));

    FairingException taken = catchThrowableOfType(FairingException.class,
        () -> cluster.submit(job("dup"), context,
        SubmitOptions.DEFAULT, ProgressListener.NONE));
    TrainingJob again = cluster.submit(job("dup"), context, new SubmitOptions(true),
        ProgressListener.NONE);

    assertThat(taken.getMessage()).contains("already exists (Succeeded)");
    String code = taken.hint().orElseThrow().replaceFirst(".*delete it first: ", "");
    assertThat(code).isEqualTo(
        "Clusters.local().attach(\"default\", \"dup\").ifPresent(TrainingJob::delete)");
    assertThat(compiles(code)).as("the fix compiles as written: %s", code).isEmpty();
    assertThat(again.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    assertThat(again.logs().snapshot()).hasSize(1);
  }

  /** Compiler errors of {@code statement} in a method with the SDK on the class path. */
  private static String compiles(String statement) throws IOException {
    Path dir = Files.createTempDirectory("fix-compiles");
    Path source = Files.writeString(dir.resolve("Fix.java"), """
        import dev.fairing4j.core.TrainingJob;
        import dev.fairing4j.deployer.Clusters;
        class Fix { void run() { %s; } }
        """.formatted(statement));
    java.io.StringWriter errors = new java.io.StringWriter();
    javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
    javac.getTask(errors, null, null, List.of("-d", dir.toString(), "-cp",
        System.getProperty("java.class.path")), null,
        javac.getStandardFileManager(null, null, null).getJavaFileObjects(source.toFile()))
        .call();
    return errors.toString();
  }

  @Test
  void aConfiguredInterpreterIsUsedAndNamed() {
    BuildContext context = BuildContext.empty()
        .withFile("/app/main.py", ContextFile.ofText("import sys\nprint(sys.executable)\n"))
        .withCommand(List.of("python3", "/app/main.py"));
    List<String> notes = new CopyOnWriteArrayList<>();

    TrainingJob job = cluster().python(Path.of("/usr/bin/python3")).submit(job("chosen"),
        context, SubmitOptions.DEFAULT, e -> {
          if (e instanceof ProgressEvent.Note n) {
            notes.add(n.message());
          }
        });

    assertThat(job.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    assertThat(job.logs().snapshot()).extracting(l -> l.text()).containsExactly(
        "/usr/bin/python3");
    assertThat(notes).anyMatch(n -> n.startsWith("local cluster: Python /usr/bin/python3"));
  }

  private LocalCluster cluster() {
    return LocalCluster.create().stateDir(state).volumesDir(volumes);
  }

  private static RenderedJob job(String name) {
    return Manifests.pyTorchJob(name, 0, List.of("python", "/app/main.py"), "Never", Map.of());
  }

}

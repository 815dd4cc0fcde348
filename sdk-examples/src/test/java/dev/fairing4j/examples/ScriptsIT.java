package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.fairing4j.core.testing.Tools;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scripts a user pipes and runs from their own directory ({@code scripts/example.sh},
 * {@code scripts/jshell.sh}), run for real with bash from a directory outside the checkout.
 *
 * <p>They run in a copy of the checkout's scripts whose {@code sdk-examples/target/classes} is this
 * build's. Maven is the one stand-in: running the real {@code mvn install} inside this very build
 * would rewrite the classes under test, so a stub {@code mvn} on {@code PATH} records its calls,
 * writes the class path listing as the dependency plugin would, and prints the terminal reset code
 * ({@code ESC[0m}) that Maven 3.8 writes to stdout even with {@code -B -q}: the fault a script must
 * keep away from its product.
 */
class ScriptsIT {
  private static final Path SCRIPTS = Path.of("..", "scripts").toAbsolutePath().normalize();
  private static final String ESC = "\u001b";

  @TempDir Path root;
  @TempDir Path user;
  private Path mvnCalls;
  private Path bin;

  @BeforeEach
  void checkoutCopyWithStubMaven() throws IOException {
    Path scripts = Files.createDirectories(root.resolve("scripts"));
    for (String name : List.of("example.sh", "jshell.sh", "JShellWithSources.java",
        "sdk-classpath.sh", "setup-machine.sh", "notebook-kernel.sh", "demo.sh")) {
      Files.copy(SCRIPTS.resolve(name), scripts.resolve(name));
    }
    Path target = Files.createDirectories(root.resolve("sdk-examples/target"));
    Files.createSymbolicLink(target.resolve("classes"),
        Path.of("target/classes").toAbsolutePath());
    mvnCalls = root.resolve("mvn-calls.txt");
    bin = Files.createDirectories(root.resolve("bin"));
    String classpath = Arrays.stream(System.getProperty("java.class.path")
            .split(File.pathSeparator))
        .filter(entry -> !entry.endsWith("classes")).collect(Collectors.joining(":"));
    Path mvn = bin.resolve("mvn");
    Files.writeString(mvn, """
        #!/usr/bin/env bash
        echo "$*" >> '%s'
        printf '\\033[0m'
        # What a first build prints: a module being built, files fetched from Maven Central.
        echo "[INFO] Building fairing4j core 0.1.0-SNAPSHOT                             [2/5]"
        for i in $(seq 50); do
          echo "[INFO] Downloaded from central: https://repo/f$i.jar (1 kB)"
        done
        if [[ -n "${FAKE_MVN_FAIL:-}" ]]; then
          echo "[ERROR] /src/Foo.java:[3,1] class, interface, enum, or record expected"
          exit 1
        fi
        for arg in "$@"; do
          case "$arg" in -Dmdep.outputFile=*) printf '%%s' '%s' > '%s' ;; esac
          case "$arg" in -DoutputDirectory=*) echo jar > "${arg#*=}/rapaio-jupyter-kernel-3.0.1.jar" ;; esac
        done
        """.formatted(mvnCalls, classpath, target.resolve("classpath.txt")));
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @AfterEach
  void removeTheLinkToTheBuild() throws IOException {
    // before JUnit cleans the temp dir, which would warn about a link leading out of it
    Files.deleteIfExists(root.resolve("sdk-examples/target/classes"));
  }

  @Test
  void exampleHelpPrintsTheUsageWithoutBuilding() throws Exception {
    Run help = run(List.of("bash", root.resolve("scripts/example.sh").toString(), "--help"));
    Run none = run(List.of("bash", root.resolve("scripts/example.sh").toString()));

    assertThat(help.status()).isZero();
    assertThat(help.out()).isEqualTo(ExampleOptions.USAGE + "\n\nexamples:\n" + Examples.list()
        + "\n");
    assertThat(none.status()).isEqualTo(Examples.USAGE);
    assertThat(none.err()).startsWith("usage: scripts/example.sh");
    assertThat(mvnCalls).doesNotExist();
  }

  @Test
  void exampleDryRunWritesOnlyYamlToStdout() throws Exception {
    Run dryRun = run(List.of("bash", root.resolve("scripts/example.sh").toString(),
        "pytorch-simple", "--dry-run"));

    assertThat(dryRun.status()).as(dryRun.err()).isZero();
    assertThat(Files.readString(mvnCalls)).as("Maven was asked to build").contains("install");
    assertThat(dryRun.out()).doesNotContain(ESC).startsWith("---\napiVersion: ");
    List<Object> kinds = new ArrayList<>();
    var parser = new ObjectMapper(new YAMLFactory()).readerFor(Map.class)
        .readValues(dryRun.out());
    while (parser.hasNext()) {
      kinds.add(((Map<?, ?>) parser.next()).get("kind"));
    }
    assertThat(kinds).contains("PyTorchJob");
    assertThat(dryRun.err()).contains("example: building the SDK").doesNotContain(ESC);
  }

  /**
   * The scripts build only when a source or POM changed since the last build: every call ran
   * {@code mvn install} (36.7 s for a dry run whose Java program takes 3.2 s).
   */
  @Test
  void aSecondRunBuildsNothingUntilASourceChanges() throws Exception {
    Path source = Files.createDirectories(root.resolve("sdk-core/src/main/java"))
        .resolve("Changed.java");
    Files.writeString(source, "class Changed {}\n");
    List<String> dryRun = List.of("bash", root.resolve("scripts/example.sh").toString(),
        "pytorch-simple", "--dry-run");
    assertThat(run(dryRun).status()).isZero();
    long builds = Files.readAllLines(mvnCalls).stream().filter(l -> l.contains("install")).count();

    Run again = run(dryRun);
    assertThat(again.status()).as(again.err()).isZero();
    assertThat(again.err()).doesNotContain("building the SDK");
    assertThat(Files.readAllLines(mvnCalls).stream().filter(l -> l.contains("install")))
        .hasSize((int) builds);

    Files.setLastModifiedTime(source, java.nio.file.attribute.FileTime.from(
        java.time.Instant.now().plusSeconds(5)));
    Run changed = run(dryRun);
    assertThat(changed.err()).contains("example: building the SDK");
    assertThat(Files.readAllLines(mvnCalls).stream().filter(l -> l.contains("install")))
        .hasSize((int) builds + 1);
  }

  /**
   * A first build says what it does while it takes minutes: each module, and the files fetched
   * so far; a failed one shows Maven's errors, not a silent exit.
   */
  @Test
  void theBuildShowsItsProgressAndItsErrors() throws Exception {
    List<String> dryRun = List.of("bash", root.resolve("scripts/example.sh").toString(),
        "pytorch-simple", "--dry-run");
    Run built = run(dryRun);
    assertThat(built.status()).as(built.err()).isZero();
    assertThat(built.err()).contains("example: building the SDK", "a minute or two the first"
        + " time", "example: building fairing4j core 0.1.0-SNAPSHOT [2/5] (",
        "example: 50 files downloaded from Maven Central (").doesNotContain(ESC);

    Files.writeString(root.resolve("pom.xml"), "<project/>\n");  // newer than the stamp
    Run failed = run(dryRun, Map.of("FAKE_MVN_FAIL", "1"));
    assertThat(failed.status()).isNotZero();
    assertThat(failed.err()).contains("example: the build failed (exit 1); its errors",
        "[ERROR] /src/Foo.java:[3,1] class, interface, enum, or record expected");
  }

  @Test
  void theDemoRefusesABadArgumentSayingWhichAndHowWithoutAStackTrace() throws Exception {
    Run bad = run(List.of("bash", root.resolve("scripts/demo.sh").toString(), "--samples",
        "abc"));
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("demo: --samples takes a whole number, not 'abc'",
        "usage: scripts/demo.sh").doesNotContain("Exception", "\tat ");
    Run zero = run(List.of("bash", root.resolve("scripts/demo.sh").toString(), "--epochs=0"));
    assertThat(zero.err()).contains("demo: --epochs takes 1 or more, not 0");
    Run unknown = run(List.of("bash", root.resolve("scripts/demo.sh").toString(), "--sample",
        "5"));
    assertThat(unknown.err()).contains("demo: unknown argument '--sample'");
  }

  /**
   * Stopped while it follows the job (Ctrl-C; the test sends SIGTERM, which runs the same
   * shutdown hooks, since a JVM started from a background shell ignores SIGINT), the demo says
   * the job goes on and how to follow or delete it, and {@code --delete} deletes it.
   */
  @Test
  void aStoppedDemoSaysTheJobGoesOnAndHowToDeleteIt() throws Exception {
    Tools.localTraining();
    Map<String, String> env = Map.of("XDG_STATE_HOME", root.resolve("state").toString(),
        "XDG_DATA_HOME", root.resolve("data").toString());
    Path out = root.resolve("demo.out");
    Path err = root.resolve("demo.err");
    ProcessBuilder builder = new ProcessBuilder("bash", root.resolve("scripts/demo.sh")
        .toString(), "--samples", "2000", "--workers", "0", "--quiet").directory(user.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
    builder.environment().putAll(env);
    Process demo = builder.start();
    try {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (!Files.readString(out).contains("Train Epoch") && System.nanoTime() < end
          && demo.isAlive()) {
        Thread.sleep(100);
      }
      assertThat(Files.readString(out)).as(Files.readString(err)).contains("Train Epoch");
      demo.destroy();  // SIGTERM to the demo's JVM (demo.sh execs java)
      assertThat(demo.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      demo.destroyForcibly();
    }
    assertThat(Files.readString(err)).contains("demo: stopped following PyTorchJob"
        + " default/fashion-mnist (local); the job goes on running on this machine. Follow it"
        + " again: scripts/demo.sh --attach; delete it: scripts/demo.sh --delete");

    Run delete = run(List.of("bash", root.resolve("scripts/demo.sh").toString(), "--delete"),
        env);
    assertThat(delete.status()).as(delete.err()).isZero();
    assertThat(delete.out()).contains("demo: deleted PyTorchJob default/fashion-mnist (local)");
    Run again = run(List.of("bash", root.resolve("scripts/demo.sh").toString(), "--delete"),
        env);
    assertThat(again.out()).contains("demo: there is no job fashion-mnist to delete");
  }

  @Test
  void theTrainJobExamplesDryRunIsATrainJobOnTorchDistributed() throws Exception {
    Run dryRun = run(List.of("bash", root.resolve("scripts/example.sh").toString(),
        "pytorch-trainjob", "--dry-run"));

    assertThat(dryRun.status()).as(dryRun.err()).isZero();
    Map<?, ?> job = new ObjectMapper(new YAMLFactory()).readValue(dryRun.out(), Map.class);
    assertThat(job.get("kind")).isEqualTo("TrainJob");
    assertThat(dryRun.out()).contains("name: torch-distributed", "numNodes: 2", "- torchrun");
  }

  @Test
  void jshellRunsTheUsersScriptFromTheUsersDirectory() throws Exception {
    Files.writeString(user.resolve("my.jsh"), """
        System.out.println("cwd=" + java.nio.file.Path.of("train.py").toAbsolutePath());
        System.out.println("sdk=" + dev.fairing4j.examples.Examples.class.getSimpleName());
        /exit
        """);

    Run jshell = run(List.of("bash", root.resolve("scripts/jshell.sh").toString(), "my.jsh"));

    assertThat(jshell.status()).as(jshell.err()).isZero();
    assertThat(jshell.out()).doesNotContain(ESC)
        .contains("cwd=" + user.toRealPath().resolve("train.py"))
        .contains("sdk=Examples");
  }

  @Test
  void jshellShowsTheSdksJavadocOnTheSecondTab() throws Exception {
    Tools.require("script", "bsdutils");
    // jshell's line editor completes and documents only on a terminal: script(1) gives it one,
    // sized, or the editor cannot lay the documentation out.
    ProcessBuilder builder = new ProcessBuilder("script", "-qfec",
        "stty rows 50 cols 200; exec bash '"
        + root.resolve("scripts/jshell.sh") + "'", "/dev/null")
        .directory(user.toFile()).redirectErrorStream(true);
    builder.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
    Terminal terminal = new Terminal(builder.start());
    try {
      terminal.await("jshell> ");
      terminal.type("import dev.fairing4j.core.*; import dev.fairing4j.deployer.*;\n");
      terminal.await("jshell> ");
      for (var call : List.of(
          Map.entry("Fairing.pipeline(", "An empty pipeline; set its stages with the fluent calls"),
          Map.entry("Deployers.pyTorchJob(", "A Kubeflow PyTorchJob with a Master and no Workers"),
          Map.entry("Clusters.local(", "This machine, for trying everything without a cluster"))) {
        terminal.type(call.getKey() + "\t");
        terminal.await("<press tab again to see documentation>");
        terminal.type("\t");
        terminal.await(call.getValue());
        terminal.type("\u0003");
        terminal.await("jshell> ");
      }
      terminal.type("/exit\n");
      terminal.await("Goodbye");
    } finally {
      terminal.close();
    }
  }

  /** A process on a terminal: what it printed, escape codes and carriage returns left out. */
  private static final class Terminal implements AutoCloseable {
    private final Process process;
    private final StringBuilder screen = new StringBuilder();
    private int seen;

    Terminal(Process process) {
      this.process = process;
      Thread reader = new Thread(() -> {
        byte[] buffer = new byte[8192];
        try (var in = process.getInputStream()) {
          for (int n; (n = in.read(buffer)) >= 0; ) {
            String text = new String(buffer, 0, n, StandardCharsets.UTF_8)
                .replaceAll("\u001b(\\[[0-9;?]*[A-Za-z]|[=>])|\r", "");
            synchronized (screen) {
              screen.append(text);
              screen.notifyAll();
            }
          }
        } catch (IOException e) {
          // the process ended
        }
      }, "terminal-reader");
      reader.setDaemon(true);
      reader.start();
    }

    void type(String keys) throws IOException {
      process.getOutputStream().write(keys.getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    }

    /** Waits until {@code text} shows after what the last wait saw. */
    void await(String text) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      synchronized (screen) {
        int at;
        while ((at = screen.indexOf(text, seen)) < 0) {
          long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          if (left <= 0) {
            throw new AssertionError("no '" + text + "' on the terminal in 120 s; it shows:\n"
                + screen.substring(seen));
          }
          screen.wait(left);
        }
        seen = at + text.length();
      }
    }

    @Override
    public void close() throws InterruptedException {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  @Test
  void notebookKernelFetchesTheKernelWithMavenAndWritesAKernelspec() throws Exception {
    Path kernel = user.resolve("kernel");
    Path jupyter = user.resolve("jupyter");

    Run install = run(List.of("bash", root.resolve("scripts/notebook-kernel.sh").toString(),
        "--kernel-dir", kernel.toString(), "--jupyter-dir", jupyter.toString()));

    assertThat(install.status()).as(install.err()).isZero();
    Path spec = jupyter.resolve("kernels/rapaio-jupyter-kernel");
    assertThat(install.out()).isEqualTo(spec + "\n");
    assertThat(install.err()).as("Maven's ESC[0m, which the stub writes as Maven 3.8 does")
        .doesNotContain(ESC);
    assertThat(Files.readString(mvnCalls)).contains("dependency:copy",
        "-Dartifact=io.github.padreati:rapaio-jupyter-kernel:3.0.1");
    var json = new ObjectMapper().readTree(spec.resolve("kernel.json").toFile());
    List<String> argv = new ArrayList<>();
    json.path("argv").forEach(a -> argv.add(a.asText()));
    assertThat(argv).containsExactly("java", "-Dmaven.repo.local.tail="
        + System.getProperty("user.home") + "/.m2/repository", "-Dslf4j.internal.verbosity=ERROR",
        "-cp", kernel.toRealPath() + "/loop-thread-fix/classes:" + kernel.toRealPath()
            + "/rapaio-jupyter-kernel.jar", "org.rapaio.jupyter.kernel.MainApp",
        "{connection_file}");
    assertThat(json.path("language").asText()).isEqualTo("java");
    assertThat(kernel.resolve("loop-thread-fix/classes/org/rapaio/jupyter/kernel/channels/"
        + "LoopThread.class")).isRegularFile();
    assertThat(kernel.resolve("rapaio-jupyter-kernel.jar")).hasContent("jar");
    assertThePatchedChannelLoopOutlivesAFailedMessage(kernel.resolve("loop-thread-fix/classes"));
  }

  /**
   * The kernel's channels listen before their handler table exists; the first message can throw
   * there. rapaio's own loop ended on it and the kernel never answered again.
   */
  private static void assertThePatchedChannelLoopOutlivesAFailedMessage(Path classes)
      throws Exception {
    try (var loader = new java.net.URLClassLoader(new java.net.URL[] {classes.toUri().toURL()},
        null)) {
      Class<?> loop = loader.loadClass("org.rapaio.jupyter.kernel.channels.LoopThread");
      var calls = new java.util.concurrent.atomic.AtomicInteger();
      var third = new java.util.concurrent.CountDownLatch(1);
      Runnable body = () -> {
        if (calls.incrementAndGet() == 1) {
          throw new NullPointerException("handlers is null");
        }
        if (calls.get() == 3) {
          third.countDown();
        }
      };
      Thread thread = (Thread) loop.getConstructor(String.class, long.class, Runnable.class)
          .newInstance("Shell-test", 1L, body);
      thread.start();
      try {
        assertThat(third.await(10, TimeUnit.SECONDS)).as("loop ran on after a failed message")
            .isTrue();
        assertThat(thread.isAlive()).isTrue();
      } finally {
        loop.getMethod("shutdown").invoke(thread);
        thread.join(5000);
      }
      assertThat(thread.isAlive()).as("loop ends on shutdown()").isFalse();
    }
  }

  private record Run(int status, String out, String err) {}

  private Run run(List<String> command) throws Exception {
    return run(command, Map.of());
  }

  private Run run(List<String> command, Map<String, String> env) throws Exception {
    Path out = root.resolve("stdout");
    Path err = root.resolve("stderr");
    ProcessBuilder builder = new ProcessBuilder(command).directory(user.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(command + " did not finish in 120 s; stderr: "
          + Files.readString(err));
    }
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}

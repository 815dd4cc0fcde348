package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The requirements wrapper really installs with Debian's Python, which refuses system-wide
 * installs (PEP 668): offline, from a wheel made here.
 */
class RequirementsBootstrapIT {
  private static final Path PYTHON = Path.of("/usr/bin/python3");

  @TempDir Path dir;

  @Test
  void theWrapperInstallsIntoItsOwnDirectoryThenRunsTheCommand() throws Exception {
    assertThat(PYTHON).as("install it: apt-get install python3 python3-pip").isExecutable();
    Path wheel = wheel(dir.resolve("fairing4j_probe-1.0-py3-none-any.whl"));
    Files.writeString(dir.resolve("requirements.txt"), wheel + "\n");
    Files.writeString(dir.resolve("train.py"), "import fairing4j_probe\n");
    BuildContext context = Preprocessors.python(dir.resolve("train.py"))
        .requirements(Path.of("requirements.txt")).prepare();
    Path wrapper = dir.resolve("bootstrap.sh");
    Files.write(wrapper, context.files().get("/app/.fairing4j/bootstrap.sh").bytes());
    Path site = dir.resolve("site-packages");

    Run first = run(wrapper, site);
    Run second = run(wrapper, site);

    assertThat(first.exitCode()).as(first.output()).isZero();
    assertThat(first.output()).contains("fairing4j: installing", "probe=42");
    assertThat(site.resolve("fairing4j_probe/__init__.py")).exists();
    assertThat(second.output()).as("a restart with the same requirements skips pip")
        .doesNotContain("installing").contains("probe=42");
    // The point of --target: this interpreter refuses plain system-wide installs.
    assertThat(Path.of("/usr/lib/python3.11/EXTERNALLY-MANAGED")).exists();
  }

  private record Run(int exitCode, String output) {}

  private Run run(Path wrapper, Path site) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder("/bin/sh", wrapper.toString(), PYTHON.toString(),
        "-c", "import fairing4j_probe; print('probe=%d' % fairing4j_probe.VALUE)")
        .redirectErrorStream(true);
    builder.environment().putAll(Map.of("FAIRING4J_REQUIREMENTS",
        dir.resolve("requirements.txt").toString(), "FAIRING4J_SITE_PACKAGES", site.toString(),
        "FAIRING4J_PYTHON", PYTHON.toString(), "PIP_NO_INDEX", "1"));
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(process.waitFor(), output);
  }

  private static Path wheel(Path file) throws Exception {
    return TestWheels.write(file.getParent(), "fairing4j_probe", "1.0", 42);
  }
}

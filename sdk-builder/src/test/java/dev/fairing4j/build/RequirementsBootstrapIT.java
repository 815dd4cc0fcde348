package dev.fairing4j.build;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
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

  /** A pure-Python wheel with one module, built by hand (a wheel is a zip with a RECORD). */
  private static Path wheel(Path file) throws Exception {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("fairing4j_probe/__init__.py", "VALUE = 42\n");
    files.put("fairing4j_probe-1.0.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: fairing4j-probe\nVersion: 1.0\n");
    files.put("fairing4j_probe-1.0.dist-info/WHEEL",
        "Wheel-Version: 1.0\nGenerator: fairing4j-test\nRoot-Is-Purelib: true\n"
            + "Tag: py3-none-any\n");
    StringBuilder record = new StringBuilder();
    for (Map.Entry<String, String> entry : files.entrySet()) {
      byte[] bytes = entry.getValue().getBytes(StandardCharsets.UTF_8);
      String hash = Base64.getUrlEncoder().withoutPadding().encodeToString(
          MessageDigest.getInstance("SHA-256").digest(bytes));
      record.append(entry.getKey()).append(",sha256=").append(hash).append(',')
          .append(bytes.length).append('\n');
    }
    record.append("fairing4j_probe-1.0.dist-info/RECORD,,\n");
    files.put("fairing4j_probe-1.0.dist-info/RECORD", record.toString());
    ByteArrayOutputStream zip = new ByteArrayOutputStream();
    try (ZipOutputStream out = new ZipOutputStream(zip)) {
      for (Map.Entry<String, String> entry : files.entrySet()) {
        out.putNextEntry(new ZipEntry(entry.getKey()));
        out.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      zip.writeTo(out);
    }
    return file;
  }

}

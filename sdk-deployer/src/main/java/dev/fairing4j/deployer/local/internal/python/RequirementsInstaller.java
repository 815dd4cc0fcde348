package dev.fairing4j.deployer.local.internal.python;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.deployer.local.internal.runtime.HostTools;
import dev.fairing4j.deployer.local.internal.runtime.Launcher;
import dev.fairing4j.deployer.local.internal.settings.LocalException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Installs a job's {@code requirements.txt} once per job with
 * {@code pip install --target <run dir>/.deps}: Debian's Python refuses system-wide installs
 * (PEP 668), and a target directory keeps the job's packages with the job. Replicas get the
 * directory on their PYTHONPATH.
 */
public final class RequirementsInstaller {
  /**
   * The variable naming the directory the image's start-up wrapper installs requirements into
   * (sdk-builder's {@code RequirementsBootstrap}; a test in sdk-examples keeps the two equal).
   */
  public static final String SITE_PACKAGES_ENV = "FAIRING4J_SITE_PACKAGES";
  /**
   * The wrapper's stamp in that directory: when it equals the requirements file, the wrapper
   * skips pip. The local cluster installs once at submit, with the host's pip configuration,
   * and writes the stamp, so replicas start at once instead of running pip again in a sandbox
   * that sees neither that configuration nor the indexes it names.
   */
  public static final String STAMP = ".fairing4j-requirements.txt";

  private RequirementsInstaller() {}

  /**
   * Runs pip with {@code python}, the working directory being the run directory so relative paths
   * in the file resolve as in the image; pip's output goes to {@code log}.
   *
   * @throws FairingException with pip's exit code and last lines when it fails
   */
  public static void install(Path python, Path requirements, Path runDir, Path target,
      Path log) {
    ProcessBuilder builder = new ProcessBuilder(List.of(
        HostTools.require("setpriv", "util-linux", "").toString(), "--pdeathsig", "KILL", "--",
        python.toString(), "-m", "pip", "install", "--target", target.toString(),
        "-r", requirements.toString(), "--disable-pip-version-check", "--no-input",
        "--no-warn-script-location"))
        .directory(runDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    try {
      Files.createDirectories(target);
      Files.createDirectories(log.getParent());
      Process process = Launcher.start(builder);
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        // the parent-death signal covers a dying JVM, not an interrupted submit: stop pip here
        process.destroyForcibly();
        Thread.currentThread().interrupt();
        throw FairingException.of("install requirements", requirements.toString(),
            "interrupted", "run the job again", e);
      }
      if (process.exitValue() == 0) {
        Files.copy(requirements, target.resolve(STAMP),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      } else {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        List<String> tail = lines.subList(Math.max(0, lines.size() - 15), lines.size());
        boolean noPip = tail.stream().anyMatch(l -> l.contains("No module named pip"));
        throw LocalException.exited("install requirements", requirements.toString(),
            process.exitValue(), "pip failed:\n    " + String.join("\n    ", tail),
            noPip ? "apt-get install python3-pip, or choose a Python with pip via"
                + " LocalCluster.python(Path)"
                : "fix requirements.txt (pip's full output is in " + log + ")");
      }
    } catch (IOException e) {
      throw FairingException.of("install requirements", requirements.toString(), e.toString(),
          "check that " + python + " runs", e);
    }
  }
}

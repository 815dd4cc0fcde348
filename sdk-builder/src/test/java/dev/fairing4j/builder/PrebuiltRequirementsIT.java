package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.Layer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requirements installed on this machine into the image's requirements layer, by Debian's real
 * pip from a wheelhouse made here: what lands in the context, that the job's command then runs
 * with no pip and no network, and that the installed set is reused until the requirements change.
 */
class PrebuiltRequirementsIT {
  private static final Path PYTHON = Path.of("/usr/bin/python3");

  @TempDir Path dir;
  Path wheels;
  Path pipRuns;
  Path countingPython;

  @BeforeEach
  void wheelhouseAndACountingInterpreter() throws Exception {
    assertThat(PYTHON).as("install it: apt-get install python3 python3-pip").isExecutable();
    wheels = dir.resolve("wheels");
    TestWheels.write(wheels, "fairing4j_probe", "1.0", 42);
    TestWheels.write(wheels, "fairing4j_other", "2.0", 7);
    pipRuns = dir.resolve("pip-runs");
    countingPython = dir.resolve("python3-counting");
    // The interpreter that runs pip, wrapped so the test sees each time pip really runs.
    Files.writeString(countingPython, "#!/bin/sh\necho run >> '" + pipRuns + "'\nexec "
        + PYTHON + " \"$@\"\n");
    Files.setPosixFilePermissions(countingPython, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(dir.resolve("train.py"), "import fairing4j_probe\n"
        + "print('probe=%d' % fairing4j_probe.VALUE)\n");
  }

  private PrebuiltDependencies fromWheelhouse() {
    return PrebuiltDependencies.fromWheelhouse(wheels).python(countingPython)
        .cacheDirectory(dir.resolve("cache"));
  }

  private BuildContext prepare(String requirements, PrebuiltDependencies how) throws Exception {
    Files.writeString(dir.resolve("requirements.txt"), requirements);
    return Preprocessors.python(dir.resolve("train.py")).requirements(Path.of("requirements.txt"))
        .prebuildRequirements(how).prepare();
  }

  private long pipRuns() throws Exception {
    return Files.exists(pipRuns) ? Files.readAllLines(pipRuns).size() : 0;
  }

  @Test
  void thePackagesLandInTheRequirementsLayerAndTheCommandRunsWithoutPip() throws Exception {
    BuildContext context = prepare("fairing4j-probe==1.0\n", fromWheelhouse());

    String site = PrebuiltDependencies.IMAGE_DIRECTORY;
    assertThat(context.files()).containsKey(site + "/fairing4j_probe/__init__.py")
        .containsKey(site + "/.fairing4j-requirements.txt")
        .doesNotContainKey(site + "/fairing4j_other/__init__.py")
        .doesNotContainKey("/app/.fairing4j/bootstrap.sh")
        .doesNotContainKey("/app/requirements.txt");
    assertThat(context.files(Layer.REQUIREMENTS).keySet()).allMatch(p -> p.startsWith(site));
    assertThat(context.files(Layer.REQUIREMENTS).keySet())
        .noneMatch(p -> p.endsWith(".pyc"));
    assertThat(context.command()).containsExactly("python", "-u", "/app/train.py");
    assertThat(context.env()).containsEntry("PYTHONPATH", site);

    // The container's start, played here: the image's files under a root, no index, no pip.
    Path root = dir.resolve("root");
    for (Map.Entry<String, ContextFile> file : context.files().entrySet()) {
      Path target = root.resolve(file.getKey().substring(1));
      Files.createDirectories(target.getParent());
      try (InputStream in = file.getValue().open()) {
        Files.copy(in, target);
      }
    }
    ProcessBuilder start = new ProcessBuilder(PYTHON.toString(), "-u",
        root.resolve("app/train.py").toString()).redirectErrorStream(true);
    start.environment().putAll(Map.of("PYTHONPATH", root + site, "PIP_NO_INDEX", "1",
        "PYTHONDONTWRITEBYTECODE", "1"));
    Process process = start.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(output).isZero();
    assertThat(output).contains("probe=42");
  }

  @Test
  void theInstalledSetIsReusedUntilTheRequirementsChange() throws Exception {
    BuildContext first = prepare("fairing4j-probe==1.0\n", fromWheelhouse());
    BuildContext again = prepare("fairing4j-probe==1.0\n", fromWheelhouse());
    assertThat(pipRuns()).as("pip ran once for the same requirements").isEqualTo(1);
    assertThat(again.digest()).isEqualTo(first.digest());

    BuildContext changed = prepare("fairing4j-probe==1.0\nfairing4j-other==2.0\n",
        fromWheelhouse());

    assertThat(pipRuns()).isEqualTo(2);
    assertThat(changed.files()).containsKey(PrebuiltDependencies.IMAGE_DIRECTORY
        + "/fairing4j_other/__init__.py");
    assertThat(changed.contentTag()).isNotEqualTo(first.contentTag());
  }

  @Test
  void anotherPythonVersionAndPlatformTakeBinaryWheelsOnly() throws Exception {
    BuildContext context = prepare("fairing4j-probe==1.0\n", fromWheelhouse()
        .pythonVersion("3.12").platform("manylinux2014_x86_64"));

    assertThat(context.files()).containsKey(PrebuiltDependencies.IMAGE_DIRECTORY
        + "/fairing4j_probe/__init__.py");
  }

  @Test
  void aRequirementTheWheelhouseLacksFailsWithPipsWordsAndTheFix() throws Exception {
    assertThatThrownBy(() -> prepare("fairing4j-missing==1.0\n", fromWheelhouse()))
        .isInstanceOfSatisfying(FairingException.class, e -> {
          assertThat(e.getMessage()).contains("pip exited with 1", "fairing4j-missing");
          assertThat(e.hint()).hasValueSatisfying(hint -> assertThat(hint)
              .contains("pip wheel -r requirements.txt -w " + wheels));
        });
    assertThat(dir.resolve("cache")).as("no half-installed set is kept")
        .isEmptyDirectory();
  }

  @Test
  void anInterpreterWithoutPipIsNamedWithTheInstallLine() throws Exception {
    Path noPip = dir.resolve("python-without-pip");
    Files.writeString(noPip, "#!/bin/sh\necho '/usr/bin/python3: No module named pip' >&2\n"
        + "exit 1\n");
    Files.setPosixFilePermissions(noPip, PosixFilePermissions.fromString("rwxr-xr-x"));

    assertThatThrownBy(() -> prepare("fairing4j-probe==1.0\n",
        PrebuiltDependencies.fromWheelhouse(wheels).python(noPip)
            .cacheDirectory(dir.resolve("cache"))))
        .isInstanceOfSatisfying(FairingException.class,
            e -> assertThat(e.hint()).hasValueSatisfying(hint -> assertThat(hint)
                .contains("apt-get install python3-pip")));
  }

  @Test
  void theCacheHoldsOneCompleteSetPerInputAndNoTemporaryDirectory() throws Exception {
    prepare("fairing4j-probe==1.0\n", fromWheelhouse());
    assertThat(Files.list(dir.resolve("cache")).map(p -> p.getFileName().toString()).toList())
        .as("one complete set, no temporary directory left").hasSize(1)
        .noneMatch(name -> name.contains(".tmp-"));
    assertThat(List.of(pipRuns())).containsExactly(1L);
  }
}

package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Layer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PythonPreprocessorTest {
  @TempDir Path dir;

  private Path write(String relative, String content) throws IOException {
    Path file = dir.resolve(relative);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, content);
  }

  private static String text(ContextFile file) {
    return new String(file.bytes(), StandardCharsets.UTF_8);
  }

  @Test
  void defaultsRunTheEntryWithUnbufferedPythonInApp() throws IOException {
    Path entry = write("train.py", "print('hi')\n");

    BuildContext context = Preprocessors.python(entry).prepare();

    assertThat(context.files()).containsOnlyKeys("/app/train.py");
    assertThat(text(context.files().get("/app/train.py"))).isEqualTo("print('hi')\n");
    assertThat(context.command()).containsExactly("python", "-u", "/app/train.py");
    assertThat(context.workingDir()).isEqualTo("/app");
    assertThat(context.env()).containsEntry("PYTHONUNBUFFERED", "1");
    assertThat(context.files(Layer.REQUIREMENTS)).isEmpty();
  }

  @Test
  void copiesFilesAndDirectoriesRecursivelyKeepingTheirLayout() throws IOException {
    Path entry = write("train.py", "import model\n");
    write("model.py", "x = 1\n");
    write("data/labels.txt", "a\n");
    write("data/nested/deeper/weights.bin", "w");
    write("data/__pycache__/model.cpython-311.pyc", "junk");
    write("data/nested/stale.pyc", "junk");
    write("data/.git/HEAD", "ref");
    write("unrelated.py", "no\n");

    BuildContext context = Preprocessors.python(entry).files(Path.of("model.py"))
        .directories(Path.of("data")).prepare();

    assertThat(context.files()).containsOnlyKeys("/app/train.py", "/app/model.py",
        "/app/data/labels.txt", "/app/data/nested/deeper/weights.bin");
    assertThat(context.files(Layer.CODE)).hasSize(4);
  }

  @Test
  void pathPrefixOutputsTorchrunAndArgsShapeTheContext() throws IOException {
    Path entry = write("src/train.py", "pass\n");
    write("src/util/io.py", "pass\n");
    Path config = write("configs/prod.yaml", "lr: 0.1\n");

    BuildContext context = Preprocessors.python(entry).baseDir(dir).pathPrefix("/opt/job/")
        .directories(Path.of("src/util")).output(config, "/etc/train/config.yaml")
        .torchrun("--nproc_per_node=2").args("--epochs", "3").env("SEED", "7").prepare();

    assertThat(context.files()).containsOnlyKeys("/opt/job/src/train.py",
        "/opt/job/src/util/io.py", "/etc/train/config.yaml");
    assertThat(context.workingDir()).isEqualTo("/opt/job");
    assertThat(context.command()).containsExactly("torchrun", "--nproc_per_node=2",
        "/opt/job/src/train.py", "--epochs", "3");
    assertThat(context.env()).containsEntry("SEED", "7");
  }

  @Test
  void commandOverrideKeepsArgs() throws IOException {
    Path entry = write("train.py", "pass\n");

    BuildContext context = Preprocessors.python(entry).command("python3", "/app/train.py")
        .args("--fast").prepare();

    assertThat(context.command()).containsExactly("python3", "/app/train.py", "--fast");
  }

  @Test
  void requirementsGoIntoTheirOwnLayerAndAWrapperInstallsThemFirst() throws IOException {
    Path entry = write("train.py", "import yaml\n");
    write("requirements.txt", "pyyaml==6.0\n");

    BuildContext context = Preprocessors.python(entry).directories(dir)
        .requirements(Path.of("requirements.txt")).prepare();

    assertThat(context.files(Layer.REQUIREMENTS)).containsOnlyKeys("/app/requirements.txt",
        "/app/.fairing4j/bootstrap.sh");
    assertThat(context.files(Layer.CODE)).containsOnlyKeys("/app/train.py");
    ContextFile wrapper = context.files().get("/app/.fairing4j/bootstrap.sh");
    assertThat(wrapper.isExecutable()).isTrue();
    assertThat(text(wrapper)).contains("pip install", "--target", "/app/requirements.txt",
        "PYTHONPATH", "exec \"$@\"");
    assertThat(context.command()).containsExactly("/bin/sh", "/app/.fairing4j/bootstrap.sh",
        "python", "-u", "/app/train.py");
  }

  @Test
  void preinstalledShipsRequirementsButRunsTheEntryDirectly() throws IOException {
    Path entry = write("train.py", "pass\n");
    write("requirements.txt", "torch\n");

    BuildContext context = Preprocessors.python(entry).requirements(Path.of("requirements.txt"))
        .preinstalled().prepare();

    assertThat(context.files(Layer.REQUIREMENTS)).containsOnlyKeys("/app/requirements.txt");
    assertThat(context.command()).containsExactly("python", "-u", "/app/train.py");
  }

  @Test
  void aCodeChangeChangesOnlyTheCodeLayerAndTheDigest() throws IOException {
    Path entry = write("train.py", "print(1)\n");
    write("requirements.txt", "torch\n");
    PythonPreprocessor python =
        Preprocessors.python(entry).requirements(Path.of("requirements.txt"));
    BuildContext before = python.prepare();
    String digestBefore = before.digest(); // contexts read files lazily: take it before the edit

    Files.writeString(entry, "print(2)\n");
    BuildContext after = python.prepare();

    assertThat(after.digest()).isNotEqualTo(digestBefore);
    assertThat(after.files(Layer.REQUIREMENTS).keySet())
        .isEqualTo(before.files(Layer.REQUIREMENTS).keySet());
    assertThat(python.prepare().digest()).isEqualTo(after.digest());
  }

  @Test
  void executableBitFollowsTheOwnerBit() throws IOException {
    Path entry = write("train.py", "pass\n");
    Path tool = write("tool.sh", "#!/bin/sh\n");
    Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));

    BuildContext context = Preprocessors.python(entry).files(tool).prepare();

    assertThat(context.files().get("/app/tool.sh").isExecutable()).isTrue();
    assertThat(context.files().get("/app/train.py").isExecutable()).isFalse();
  }

  @Test
  void fluentCallsReturnNewValuesAndLeaveTheReceiverAlone() throws IOException {
    Path entry = write("train.py", "pass\n");
    PythonPreprocessor base = Preprocessors.python(entry);

    PythonPreprocessor withArgs = base.args("--x");

    assertThat(withArgs).isNotSameAs(base).isNotEqualTo(base);
    assertThat(base.prepare().command()).containsExactly("python", "-u", "/app/train.py");
    assertThat(base).isEqualTo(Preprocessors.python(entry));
    assertThat(withArgs.toString()).isEqualTo("python(train.py, args=1)");
  }

  @Test
  void missingEntryNamesTheFieldAndTheFix() {
    assertThatThrownBy(() -> Preprocessors.python(dir.resolve("nope.py")).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("entry");
          assertThat(e.getMessage()).contains("nope.py", "does not exist");
          assertThat(e.fix()).contains("check the path");
        });
  }

  @Test
  void entryThatIsADirectoryIsRejected() throws IOException {
    Files.createDirectories(dir.resolve("train.py"));

    assertThatThrownBy(() -> Preprocessors.python(dir.resolve("train.py")).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("entry");
          assertThat(e.getMessage()).contains("is a directory");
        });
  }

  @Test
  void entryOutsideTheBaseDirectoryIsRejected() throws IOException {
    Path entry = write("elsewhere/train.py", "pass\n");
    Files.createDirectories(dir.resolve("project"));

    assertThatThrownBy(() -> Preprocessors.python(entry).baseDir(dir.resolve("project")).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("entry");
          assertThat(e.getMessage()).contains("outside the base directory");
          assertThat(e.fix()).contains(".baseDir(..)", ".output(");
        });
  }

  @Test
  void fileOutsideTheBaseDirectoryIsRejected() throws IOException {
    Path entry = write("project/train.py", "pass\n");
    write("secret.py", "pass\n");

    assertThatThrownBy(() -> Preprocessors.python(entry).files(Path.of("../secret.py")).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("files");
          assertThat(e.getMessage()).contains("secret.py", "outside");
        });
  }

  @Test
  void aDirectoryGivenAsAFileAndAFileGivenAsADirectoryAreRejected() throws IOException {
    Path entry = write("train.py", "pass\n");
    write("data/x.csv", "1\n");

    assertThatThrownBy(() -> Preprocessors.python(entry).files(Path.of("data")).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("files");
          assertThat(e.getMessage()).contains("is a directory");
          assertThat(e.fix()).contains(".directories(");
        });
    assertThatThrownBy(() -> Preprocessors.python(entry).directories(Path.of("train.py")).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("directories");
          assertThat(e.getMessage()).contains("not a directory");
        });
  }

  @Test
  void missingRequirementsAndBadContainerPathsAreRejected() throws IOException {
    Path entry = write("train.py", "pass\n");

    assertThatThrownBy(() -> Preprocessors.python(entry).requirements(Path.of("req.txt")).prepare())
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("requirements"));
    assertThatThrownBy(() -> Preprocessors.python(entry).pathPrefix("app"))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("pathPrefix"));
    assertThatThrownBy(() -> Preprocessors.python(entry).output(entry, "/etc/../x.yaml"))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("output"));
    assertThatThrownBy(() -> Preprocessors.python(entry).command(List.of()))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("command"));
  }

  @Test
  void aSocketIsNotARegularFile() throws IOException {
    Path entry = write("train.py", "pass\n");
    Path socketPath = dir.resolve("agent.sock");
    try (var channel = java.nio.channels.ServerSocketChannel.open(
        java.net.StandardProtocolFamily.UNIX)) {
      channel.bind(java.net.UnixDomainSocketAddress.of(socketPath));

      assertThatThrownBy(() -> Preprocessors.python(entry).files(socketPath).prepare())
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("files");
            assertThat(e.getMessage()).contains("not a regular file");
          });
    }
  }
}

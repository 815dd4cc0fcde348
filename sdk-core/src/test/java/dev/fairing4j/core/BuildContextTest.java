package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BuildContextTest {
  @TempDir Path dir;

  @Test
  void digestIgnoresInsertionOrderTimestampsAndSourceLocation() throws Exception {
    Path a = Files.writeString(dir.resolve("a.py"), "print('a')\n");
    Path b = Files.writeString(dir.resolve("b.py"), "print('b')\n");
    BuildContext first = BuildContext.empty()
        .withFile("/app/a.py", ContextFile.of(a))
        .withFile("/app/b.py", ContextFile.of(b))
        .withCommand(List.of("python", "-u", "/app/a.py"));

    Files.setLastModifiedTime(a, FileTime.from(Instant.parse("2001-01-01T00:00:00Z")));
    Path elsewhere = Files.createDirectory(dir.resolve("copy"));
    Path a2 = Files.copy(a, elsewhere.resolve("a.py"));
    BuildContext second = BuildContext.empty()
        .withCommand(List.of("python", "-u", "/app/a.py"))
        .withFile("/app/b.py", ContextFile.ofText("print('b')\n"))
        .withFile("/app/a.py", ContextFile.of(a2));

    assertThat(second.digest()).isEqualTo(first.digest()).startsWith("sha256:").hasSize(71);
    assertThat(second.contentTag()).isEqualTo(first.contentTag()).hasSize(16)
        .matches("[0-9a-f]{16}");
  }

  @Test
  void digestChangesWithEveryPartThatShapesTheImage() {
    BuildContext base = BuildContext.empty()
        .withFile("/app/train.py", ContextFile.ofText("x = 1\n"))
        .withCommand(List.of("python", "/app/train.py"));
    List<BuildContext> variants = List.of(
        base.withFile("/app/train.py", ContextFile.ofText("x = 2\n")),
        base.withFile("/app/other.py", ContextFile.ofText("x = 1\n")),
        base.withFile("/app/train.py", ContextFile.ofText("x = 1\n").executable(true)),
        base.withFile("/app/train.py", ContextFile.ofText("x = 1\n").inLayer(Layer.REQUIREMENTS)),
        base.withCommand(List.of("python", "-u", "/app/train.py")),
        base.withWorkingDir("/work"),
        base.withEnv("EPOCHS", "1"),
        base.withLabel("org.opencontainers.image.revision", "abc"));

    assertThat(variants).extracting(BuildContext::digest)
        .doesNotContain(base.digest())
        .doesNotHaveDuplicates();
  }

  @Test
  void commandPartsAreNotConfusedByJoining() {
    BuildContext ab = BuildContext.empty().withCommand(List.of("a b", "c"));
    BuildContext a = BuildContext.empty().withCommand(List.of("a", "b c"));
    assertThat(ab.digest()).isNotEqualTo(a.digest());
  }

  @Test
  void everyWithReturnsANewValueAndLeavesTheOriginal() {
    BuildContext empty = BuildContext.empty();
    BuildContext withFile = empty.withFile("/app/x.py", ContextFile.ofText(""));

    assertThat(empty.files()).isEmpty();
    assertThat(withFile.files()).containsOnlyKeys("/app/x.py");
    assertThat(withFile).isNotSameAs(empty).isNotEqualTo(empty);
    assertThat(empty.withEnv("A", "1")).isEqualTo(empty.withEnv("A", "1"));
    assertThat(empty.workingDir()).isEqualTo("/app");
  }

  @Test
  void filesByLayerKeepsRequirementsApart() {
    BuildContext context = BuildContext.empty()
        .withFile("/app/requirements.txt", ContextFile.ofText("numpy\n").inLayer(Layer.REQUIREMENTS))
        .withFile("/app/train.py", ContextFile.ofText(""));

    assertThat(context.files(Layer.REQUIREMENTS)).containsOnlyKeys("/app/requirements.txt");
    assertThat(context.files(Layer.CODE)).containsOnlyKeys("/app/train.py");
  }

  @ParameterizedTest
  @ValueSource(strings = {"app/x.py", "/app/../etc/passwd", "/app/..", "C:\\x.py", "//x", ""})
  void containerPathsMustBeAbsolutePosixWithoutParentSteps(String path) {
    assertThatThrownBy(() -> BuildContext.empty().withFile(path, ContextFile.ofText("")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("containerPath");
  }

  @Test
  void unreadableSourceFailsWithTheFileNamed() {
    Path missing = dir.resolve("gone.py");
    BuildContext context = BuildContext.empty().withFile("/app/gone.py", ContextFile.of(missing));

    assertThatThrownBy(context::digest)
        .isInstanceOf(FairingException.class)
        .hasMessageContaining("gone.py");
  }

  @Test
  void toStringIsShort() {
    BuildContext context = BuildContext.empty()
        .withFile("/app/train.py", ContextFile.ofText("x"))
        .withCommand(List.of("python", "/app/train.py"));
    assertThat(context.toString())
        .isEqualTo("BuildContext[1 files, workingDir=/app, command=python /app/train.py]");
  }
}

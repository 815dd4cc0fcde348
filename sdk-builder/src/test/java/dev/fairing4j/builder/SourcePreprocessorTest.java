package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A script given as text: placed and run as a file of its name would be, with the Python
 * options of a file's preprocessor; bad names and empty text refused at the call, naming the
 * field; the text never shown.
 */
class SourcePreprocessorTest {
  private static final String SCRIPT = """
      import os
      token = "hunter2-not-for-logs"
      print("rank", os.environ.get("RANK"), flush=True)
      """;

  @TempDir Path dir;

  private static String text(ContextFile file) {
    return new String(file.bytes(), StandardCharsets.UTF_8);
  }

  @Test
  void theTextRunsAsAFileOfItsNameWould() throws IOException {
    BuildContext inline = Preprocessors.source("train.py", SCRIPT).prepare();
    Path file = Files.writeString(dir.resolve("train.py"), SCRIPT);
    BuildContext fromFile = Preprocessors.python(file).prepare();

    assertThat(inline.files()).containsOnlyKeys("/app/train.py");
    assertThat(text(inline.files().get("/app/train.py"))).isEqualTo(SCRIPT);
    assertThat(inline.command()).containsExactly("python", "-u", "/app/train.py");
    assertThat(inline.digest()).as("the same image as the file would give")
        .isEqualTo(fromFile.digest());
  }

  @Test
  void extraFilesAndRequirementsResolveAgainstTheBaseDirectory() throws IOException {
    Files.writeString(dir.resolve("model.py"), "x = 1\n");
    Files.writeString(dir.resolve("requirements.txt"), "numpy==1.26.4\n");

    BuildContext context = Preprocessors.source("trainer/main.py", SCRIPT).baseDir(dir)
        .files(Path.of("model.py")).requirements(Path.of("requirements.txt")).prepare();

    assertThat(context.files()).containsKeys("/app/trainer/main.py", "/app/model.py");
    assertThat(context.command()).anyMatch(part -> part.contains("/app/trainer/main.py"));
    assertThat(context.files().keySet()).anyMatch(k -> k.endsWith("requirements.txt"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"/app/train.py", "../train.py", "train", "a/../../train.py", " "})
  void aNameThatIsNotARelativePyPathIsRefusedNamingTheField(String name) {
    assertThatThrownBy(() -> Preprocessors.source(name, SCRIPT))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.getMessage()).startsWith("validate name failed").contains("train.py");
          assertThat(e.getMessage()).doesNotContain("hunter2");
        });
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   \n\t\n"})
  void anEmptyScriptIsRefusedAtTheCallWithAnExample(String source) {
    assertThatThrownBy(() -> Preprocessors.source("train.py", source))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("source")
        .hasMessageContaining("the script train.py is empty")
        .hasMessageContaining("Preprocessors.source(\"train.py\"");
  }

  @Test
  void itShowsTheScriptsLinesAndDigestNeverItsText() {
    SourcePreprocessor source = Preprocessors.source("train.py", SCRIPT);

    assertThat(source.toString()).startsWith("source(train.py, 3 lines, sha256:")
        .doesNotContain("hunter2");
    assertThat(source.digest()).matches("sha256:[0-9a-f]{64}");
    assertThat(source).isEqualTo(Preprocessors.source("train.py", SCRIPT))
        .isNotEqualTo(Preprocessors.source("train.py", SCRIPT + "\n"))
        .hasSameHashCodeAs(Preprocessors.source("train.py", SCRIPT));
  }
}

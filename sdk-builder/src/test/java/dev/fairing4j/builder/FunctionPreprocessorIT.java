package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The function form: its launcher, run by a real Python, and what it refuses at the call. */
class FunctionPreprocessorIT {
  private static final String TRAIN = """
      import logging

      def helper(x):
          return x * 2

      def train(lr: float, epochs: int = 1, layers=(64, 32), *, name="model", **extra):
          logging.basicConfig(level=logging.INFO)
          print(f"lr={lr!r} epochs={epochs!r} layers={layers!r} name={name!r} extra={extra!r}"
                f" doubled={helper(epochs)}")
      """;

  @TempDir Path dir;

  @Test
  void theLauncherCallsTheLastFunctionWithTheArgumentsAsPythonValues() throws Exception {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("lr", 0.01);
    args.put("epochs", 3);
    args.put("layers", List.of(128, 64));
    args.put("name", "quote\"and\\backslash\nnewline");
    Map<String, Object> flags = new LinkedHashMap<>();
    flags.put("amp", true);
    flags.put("seed", null);
    args.put("flags", flags);
    FunctionPreprocessor function = Preprocessors.function(TRAIN, args);

    BuildContext context = function.prepare();

    assertThat(function.function()).isEqualTo("train");
    assertThat(context.files()).containsKey("/app/train_main.py");
    assertThat(context.command()).containsExactly("python", "-u", "/app/train_main.py");
    Path script = dir.resolve("train_main.py");
    Files.write(script, context.files().get("/app/train_main.py").bytes());
    assertThat(run(script)).isEqualTo("lr=0.01 epochs=3 layers=[128, 64]"
        + " name='quote\"and\\\\backslash\\nnewline' extra={'flags': {'amp': True, 'seed': None}}"
        + " doubled=6\n");
  }

  @Test
  void callPicksAnotherFunctionAndTheIndentOfATextBlockDoesNotMatter() throws Exception {
    FunctionPreprocessor function = Preprocessors.function("""
            def main():
                print("main ran")

            def other():
                print("other ran")
        """).call("main");
    Path script = dir.resolve("main_main.py");
    Files.write(script, function.prepare().files().get("/app/main_main.py").bytes());
    assertThat(run(script)).isEqualTo("main ran\n");
  }

  @Test
  void badInputIsRefusedAtTheCallNamingTheField() {
    assertThatThrownBy(() -> Preprocessors.function("  \n", Map.of()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("validate source failed");
    assertThatThrownBy(() -> Preprocessors.function("print('no def')\n"))
        .hasMessageContaining("defines no function at its top level");
    assertThatThrownBy(() -> Preprocessors.function("def train(lr, epochs):\n    pass\n",
        Map.of("lrr", 0.1))).hasMessageContaining("validate arguments failed: train() takes no"
        + " parameter 'lrr' (it takes lr, epochs)");
    assertThatThrownBy(() -> Preprocessors.function(TRAIN, Map.of("lr", Path.of("x"))))
        .hasMessageContaining("lr is a sun.nio.fs.UnixPath, not a JSON value");
    assertThatThrownBy(() -> Preprocessors.function(TRAIN, Map.of("lr", Double.NaN)))
        .hasMessageContaining("which JSON cannot carry");
    assertThatThrownBy(() -> Preprocessors.function(TRAIN).call("nope"))
        .hasMessageContaining("'nope' is not a function the source defines at its top level (it"
            + " defines helper, train)");
  }

  @Test
  void toStringShowsTheFunctionAndArgumentNamesNeverTheSourceOrValues() {
    FunctionPreprocessor function = Preprocessors.function(TRAIN, Map.of("lr", 0.01,
        "name", "secret-run-name"));
    assertThat(function.toString()).startsWith("function(train(lr, name), sha256:")
        .doesNotContain("secret-run-name").doesNotContain("logging");
    assertThat(function.digest()).isNotEqualTo(Preprocessors.function(TRAIN,
        Map.of("lr", 0.02)).digest());
    assertThat(function).isEqualTo(Preprocessors.function(TRAIN, Map.of("name",
        "secret-run-name", "lr", 0.01)));
  }

  private String run(Path script) throws Exception {
    Process process = new ProcessBuilder(Tools.torchPython().toString(), script.toString())
        .redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }
}

package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A predictor file: packaged beside fairing4j's model server, which the image runs with the
 * file, class and model name as arguments; sibling files and requirements go with it as with a
 * training script; bad input refused naming the field.
 */
class PredictorPreprocessorTest {
  private static final String PREDICTOR = """
      class MnistModel:
          def predict(self, instances):
              return instances
      """;

  @TempDir Path dir;

  @Test
  void theImageRunsTheModelServerOnThePredictorFile() throws IOException {
    Path file = Files.writeString(dir.resolve("mnist_predictor.py"), PREDICTOR);
    Files.writeString(dir.resolve("net.py"), "LAYERS = 2\n");
    Files.writeString(dir.resolve("requirements.txt"), "numpy==1.26.4\n");

    BuildContext context = Preprocessors.predictor(file).files(Path.of("net.py"))
        .requirements(Path.of("requirements.txt")).className("MnistModel").modelName("mnist")
        .prepare();

    assertThat(context.files()).containsKeys("/app/mnist_predictor.py", "/app/net.py",
        "/app/.fairing4j/fairing4j_model_server.py");
    assertThat(new String(context.files().get("/app/.fairing4j/fairing4j_model_server.py")
        .bytes(), StandardCharsets.UTF_8)).contains("def main(", "/v1/models/");
    assertThat(context.command()).containsSubsequence("python", "-u",
        "/app/.fairing4j/fairing4j_model_server.py", "--predictor", "/app/mnist_predictor.py",
        "--class", "MnistModel", "--model_name", "mnist");
    assertThat(context.files().keySet()).anyMatch(k -> k.endsWith("requirements.txt"));
    assertThat(Preprocessors.predictor(file).prepare().command()).containsExactly("python",
        "-u", "/app/.fairing4j/fairing4j_model_server.py", "--predictor",
        "/app/mnist_predictor.py");
  }

  @Test
  void anEditedPredictorChangesTheImageAndTheSameFileGivesTheSameOne() throws IOException {
    Path file = Files.writeString(dir.resolve("predictor.py"), PREDICTOR);
    String first = Preprocessors.predictor(file).prepare().digest();
    assertThat(Preprocessors.predictor(file).prepare().digest()).isEqualTo(first);
    Files.writeString(file, PREDICTOR + "# edited\n");
    assertThat(Preprocessors.predictor(file).prepare().digest()).isNotEqualTo(first);
  }

  @Test
  void badInputIsRefusedNamingTheField() throws IOException {
    Path file = Files.writeString(dir.resolve("predictor.py"), PREDICTOR);
    Path text = Files.writeString(dir.resolve("predictor.txt"), PREDICTOR);

    assertThatThrownBy(() -> Preprocessors.predictor(dir.resolve("missing.py")).prepare())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("predictor")
        .hasMessageContaining("missing.py");
    assertThatThrownBy(() -> Preprocessors.predictor(text).prepare())
        .hasMessageContaining("is not a .py file");
    assertThatThrownBy(() -> Preprocessors.predictor(file).torchrun().prepare())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("torchrun")
        .hasMessageContaining("one process");
    assertThatThrownBy(() -> Preprocessors.predictor(file).className("Mnist Model"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("className");
    assertThatThrownBy(() -> Preprocessors.predictor(file).className("MnistModle").prepare())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("predictor.py defines no class 'MnistModle'")
        .hasMessageContaining("it defines MnistModel");
    assertThatThrownBy(() -> Preprocessors.predictor(file).modelName("MNIST/v1"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("modelName")
        .hasMessageContaining("lower-case");
    assertThatThrownBy(() -> Preprocessors.predictor(file).baseDir(dir.resolve("sub"))
        .prepare()).isInstanceOf(InvalidInputException.class);
  }

  @Test
  void toStringNamesTheFileClassAndModel() throws IOException {
    Path file = Files.writeString(dir.resolve("predictor.py"), PREDICTOR);
    assertThat(Preprocessors.predictor(file).className("MnistModel").modelName("mnist"))
        .hasToString("predictor(predictor.py, class=MnistModel, model=mnist)");
    assertThat(Preprocessors.predictor(file).modelName("mnist"))
        .isEqualTo(Preprocessors.predictor(file).modelName("mnist"));
  }

  @Test
  void aFileWrittenForKserveShipsTheStandInAndServesTheNameItConstructsItsModelWith()
      throws IOException {
    Path file = Files.writeString(dir.resolve("model.py"), """
        from kserve import Model, ModelServer

        class CustomModel(Model):
            def predict(self, payload, headers=None):
                return payload

        if __name__ == "__main__":
            ModelServer().start([CustomModel("custom-model")])
        """);

    BuildContext context = Preprocessors.predictor(file).prepare();
    assertThat(context.files()).containsKey("/app/.fairing4j/fairing4j_kserve.py");
    assertThat(context.command()).containsSubsequence("--model_name", "custom-model");
    assertThatThrownBy(() -> Preprocessors.predictor(file).modelName("mnist").prepare())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("modelName")
        .hasMessageContaining("'mnist' differs from 'custom-model'")
        .hasMessageContaining("CustomModel(args.model_name)");
    // A plain predictor's image has no stand-in.
    Path plain = Files.writeString(dir.resolve("plain.py"), PREDICTOR);
    assertThat(Preprocessors.predictor(plain).prepare().files())
        .doesNotContainKey("/app/.fairing4j/fairing4j_kserve.py");
  }
}

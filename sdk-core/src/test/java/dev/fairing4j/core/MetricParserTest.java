package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MetricParserTest {
  private final MetricParser parser = MetricParser.defaults();

  @Test
  void katibsStdoutFormat() {
    MetricParser.Reading reading = parser.parse(
        "{metricName: accuracy, metricValue: 0.7313};{metricName: loss, metricValue: 0.6649}");

    assertThat(reading.metrics()).containsExactly(Map.entry("accuracy", 0.7313),
        Map.entry("loss", 0.6649));
  }

  @Test
  void nameValuePairsOfOneOrTwoWords() {
    assertThat(parser.parse("accuracy=0.7682").metrics()).containsExactly(
        Map.entry("accuracy", 0.7682));
    assertThat(parser.parse("test loss=0.4123").metrics()).containsExactly(
        Map.entry("test loss", 0.4123));
    assertThat(parser.parse("lr=1e-3, loss = 0.5027; top-1=97.1%").metrics()).containsExactly(
        Map.entry("lr", 0.001), Map.entry("loss", 0.5027), Map.entry("top-1", 97.1));
  }

  @Test
  void argumentsAddressesAndWordsAreNoMetrics() {
    assertThat(parser.parse("python -u /app/mnist.py --epochs=1 --lr=0.01").isEmpty()).isTrue();
    assertThat(parser.parse("MASTER_ADDR=127.0.0.1 MASTER_PORT=x").isEmpty()).isTrue();
    assertThat(parser.parse("saved model to /opt/mnist/models/mnist_cnn.pt").isEmpty()).isTrue();
    assertThat(parser.parse("loss=0.5abc").isEmpty()).isTrue();
  }

  @Test
  void pytorchProgressLinesGiveEpochAndPercent() {
    MetricParser.Reading reading = parser.parse(
        "Train Epoch: 1 [640/60000 (1%)]\tloss=0.5027");

    assertThat(reading.epoch()).contains(1);
    assertThat(reading.epochs()).isEmpty();
    assertThat(reading.epochFraction()).hasValueSatisfying(f ->
        assertThat(f).isEqualTo(640.0 / 60000));
    assertThat(reading.metrics()).containsExactly(Map.entry("epoch", 1.0),
        Map.entry("progress", 1.1), Map.entry("loss", 0.5027));
  }

  @Test
  void kerasEpochLinesTellTheNumberOfEpochs() {
    MetricParser.Reading reading = parser.parse("Epoch 3/10");

    assertThat(reading.epoch()).contains(3);
    assertThat(reading.epochs()).contains(10);
    assertThat(reading.epochFraction()).contains(0.0);
  }

  @Test
  void customPatternsWithNameAndValueOrAFixedName() {
    MetricParser custom = MetricParser.none()
        .pattern("(?<name>\\w+): (?<value>[0-9.]+)")
        .pattern("top1", "top-1 acc (\\S+)");

    assertThat(custom.parse("938/938 - 5s - loss: 0.2312 - accuracy: 0.9402").metrics())
        .containsExactly(Map.entry("loss", 0.2312), Map.entry("accuracy", 0.9402));
    assertThat(custom.parse("eval: top-1 acc 0.871").metrics())
        .containsEntry("top1", 0.871);
    assertThat(custom.parse("loss=0.3").isEmpty()).isTrue();
    assertThat(MetricParser.defaults().pattern("top1", "top-1 acc (\\S+)")
        .parse("loss=0.3 top-1 acc 0.9").metrics()).containsOnlyKeys("loss", "top1");
  }

  @Test
  void badPatternsFailNamingTheFieldAndTheFix() {
    assertThatThrownBy(() -> MetricParser.defaults().pattern("(unclosed"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("pattern");
          assertThat(e.fix()).contains("java.util.regex");
        });
    assertThatThrownBy(() -> MetricParser.defaults().pattern("loss (?<value>\\S+)"))
        .isInstanceOfSatisfying(InvalidInputException.class, e ->
            assertThat(e.getMessage()).contains("(?<name>...)"));
    assertThatThrownBy(() -> MetricParser.defaults().pattern("loss", "loss \\S+"))
        .isInstanceOfSatisfying(InvalidInputException.class, e ->
            assertThat(e.fix()).contains("(?<value>"));
    assertThatThrownBy(() -> MetricParser.defaults().pattern(" ", "x(\\d)"))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void parsersAreValues() {
    assertThat(MetricParser.defaults().pattern("a", "a(\\d)"))
        .isEqualTo(MetricParser.defaults().pattern("a", "a(\\d)"))
        .hasToString("MetricParser[defaults, a=a(\\d)]");
    assertThat(MetricParser.none().parse("loss=1").metrics()).isEmpty();
    assertThat(Optional.of(MetricParser.none())).isNotEqualTo(Optional.of(MetricParser.defaults()));
  }
}

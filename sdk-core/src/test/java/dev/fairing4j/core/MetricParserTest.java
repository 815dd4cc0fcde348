package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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
    assertThat(reading.epochFraction()).contains(0.01);
    assertThat(reading.metrics()).containsExactly(Map.entry("epoch", 1.0),
        Map.entry("progress", 1.0), Map.entry("loss", 0.5027));
    // Without a percentage, the counts tell it.
    assertThat(parser.parse("Train Epoch: 2 [640/60000]").epochFraction())
        .hasValueSatisfying(f -> assertThat(f).isEqualTo(640.0 / 60000));
  }

  @Test
  void underADistributedSamplerTheScriptsOwnPercentageIsTheProgress() {
    // Each of two replicas sees half the data: 29440 of 60000 samples is 98% of its share.
    MetricParser.Reading reading = parser.parse(
        "Train Epoch: 1 [29440/60000 (98%)]\tloss: 0.412345");

    assertThat(reading.epochFraction()).contains(0.98);
    assertThat(reading.metrics()).containsEntry("progress", 98.0).containsEntry("loss", 0.412345)
        .doesNotContainKey("Train Epoch");
  }

  @Test
  void nameColonValueIsAMetricAsTheTrainerExamplesPrintIt() {
    assertThat(parser.parse("Epoch 1, Step 20, Loss: 0.37").metrics())
        .containsEntry("Loss", 0.37);
    assertThat(parser.parse("1875/1875 - 3s - loss: 0.2312 - val_accuracy: 0.9712").metrics())
        .containsEntry("loss", 0.2312).containsEntry("val_accuracy", 0.9712);
    assertThat(parser.parse("Test set: Average loss: 0.1234, Accuracy: 9876/10000 (99%)")
        .metrics()).containsEntry("Average loss", 0.1234);
    assertThat(parser.parse("started at 12:30:45").isEmpty()).isTrue();
  }

  @Test
  void toolNoiseAndEchoedSourceAreNotMetrics() {
    for (String noise : List.of(
        "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None))"
            + " after connection broken",
        "  restart_count=0",
        "  master_port=29500",
        "  group_rank=0",
        "  master_addr=localhost agent_pid=4120",
        "PET_NPROC_PER_NODE=auto PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1",
        "WORLD_SIZE=2 RANK=1 MASTER_PORT=23456",
        "  exitcode  : 1 (pid: 4242)",
        "      2 epochs = 2",
        "----> 3 lr = 0.1",
        "  File \"/app/train.py\", line 12, in <module>",
        "CPU times: user 1.91 ms, sys: 0 ns, total: 1.91 ms",
        "Wall time: 1.94 ms",
        "INFO:torch.distributed.distributed_c10d:Added key: store_based_barrier_key:1 to store"
            + " for rank: 0")) {
      assertThat(parser.parse(noise).metrics()).as(noise).isEmpty();
    }
    // What stays: one word, or a word of letters and one more, bound to a number.
    assertThat(parser.parse("epoch 3 test loss=0.4123 accuracy=0.9 AUC=0.93 F1: 0.8").metrics())
        .containsEntry("test loss", 0.4123).containsEntry("accuracy", 0.9)
        .containsEntry("AUC", 0.93).containsEntry("F1", 0.8);
    // epoch=3 is a pair as it always was; only the progress line's "Epoch: 1" is left to it.
    assertThat(parser.parse("epoch=3 loss=0.5").metrics()).containsEntry("epoch", 3.0)
        .containsEntry("loss", 0.5);
    // Katib's forms exactly.
    assertThat(parser.parse("{metricName: accuracy, metricValue: 0.7313};{metricName: loss,"
        + " metricValue: 0.6649}").metrics()).containsExactly(Map.entry("accuracy", 0.7313),
        Map.entry("loss", 0.6649));
    assertThat(parser.parse("accuracy=0.98").metrics()).containsExactly(
        Map.entry("accuracy", 0.98));
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

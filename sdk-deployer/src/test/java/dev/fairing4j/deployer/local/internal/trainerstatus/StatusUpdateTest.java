package dev.fairing4j.deployer.local.internal.trainerstatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bodies checked as the TrainJob CRD checks {@code status.trainerStatus}. */
class StatusUpdateTest {
  @Test
  void aReportAsTheSdkSendsItIsReadWithItsTimeInWholeSeconds() throws Exception {
    StatusUpdate update = parse("{\"trainerStatus\":{\"lastUpdatedTime\":"
        + "\"2026-12-04T21:40:00.987654+00:00\",\"progressPercentage\":45,"
        + "\"estimatedRemainingSeconds\":120,\"metrics\":[{\"name\":\"loss\",\"value\":\"0.15\"}]},"
        + "\"unknown\":1}");

    assertThat(update.echo()).isEqualTo("{\"trainerStatus\":{\"progressPercentage\":45,"
        + "\"estimatedRemainingSeconds\":120,\"metrics\":[{\"name\":\"loss\",\"value\":\"0.15\"}],"
        + "\"lastUpdatedTime\":\"2026-12-04T21:40:00Z\"}}");
  }

  @Test
  void aBodyWithoutTrainerStatusChangesNothing() throws Exception {
    assertThat(parse("{}").trainerStatus()).isEmpty();
    assertThat(parse("{\"trainerStatus\":null}").trainerStatus()).isEmpty();
  }

  @Test
  void whatTheCrdRefusesIsRefusedWithItsMessage() {
    assertThatThrownBy(() -> parse("{\"trainerStatus\":{\"progressPercentage\":-1,"
        + "\"lastUpdatedTime\":\"2026-12-04T21:40:00Z\"}}")).hasMessageEndingWith(
        "progressPercentage in body should be greater than or equal to 0");
    assertThatThrownBy(() -> parse("{\"trainerStatus\":{\"estimatedRemainingSeconds\":-5,"
        + "\"lastUpdatedTime\":\"2026-12-04T21:40:00Z\"}}")).hasMessageEndingWith(
        "estimatedRemainingSeconds in body should be greater than or equal to 0");
    assertThatThrownBy(() -> parse("{\"trainerStatus\":{\"metrics\":[{\"name\":\"\","
        + "\"value\":\"1\"}],\"lastUpdatedTime\":\"2026-12-04T21:40:00Z\"}}"))
        .hasMessageContaining("metrics[0].name").hasMessageEndingWith("at least 1 chars long");
    assertThatThrownBy(() -> parse("{\"trainerStatus\":{\"metrics\":[{\"name\":\"x\","
        + "\"value\":\"" + "9".repeat(65) + "\"}],\"lastUpdatedTime\":\"2026-12-04T21:40:00Z\"}}"))
        .hasMessageContaining("metrics[0].value").hasMessageEndingWith("at most 64 bytes long");
    assertThatThrownBy(() -> parse("{\"trainerStatus\":{\"metrics\":[{\"name\":\"x\"}],"
        + "\"lastUpdatedTime\":\"2026-12-04T21:40:00Z\"}}"))
        .hasMessageEndingWith("status.trainerStatus.metrics[0].value: Required value");
    StringBuilder many = new StringBuilder("{\"trainerStatus\":{\"metrics\":[");
    for (int i = 0; i < 257; i++) {
      many.append(i == 0 ? "" : ",").append("{\"name\":\"m").append(i)
          .append("\",\"value\":\"1\"}");
    }
    assertThatThrownBy(() -> parse(many + "],\"lastUpdatedTime\":\"2026-12-04T21:40:00Z\"}}"))
        .hasMessageEndingWith("Too many: 257: must have at most 256 items");
  }

  @Test
  void whatGoCannotDecodeIsAnInvalidPayload() {
    String time = "\"lastUpdatedTime\":\"2026-12-04T21:40:00Z\"";
    for (String body : new String[] {"[]", "{\"trainerStatus\":3}", "nope",
        "{\"trainerStatus\":{\"progressPercentage\":4.5," + time + "}}",
        "{\"trainerStatus\":{\"progressPercentage\":\"4\"," + time + "}}",
        "{\"trainerStatus\":{\"lastUpdatedTime\":\"yesterday\"}}",
        "{\"trainerStatus\":{\"progressPercentage\":99999999999,\"lastUpdatedTime\":\"x\"}}"}) {
      assertThatThrownBy(() -> parse(body)).as(body).hasMessage("Invalid payload");
    }
  }

  private static StatusUpdate parse(String body) throws StatusUpdate.Invalid {
    return StatusUpdate.parse(body.getBytes(StandardCharsets.UTF_8));
  }
}

package dev.fairing4j.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Durations read as a user reads them. */
class DurationsTest {
  @Test
  void shortLongAndMixedDurations() {
    assertThat(Durations.human(Duration.ofMillis(150))).isEqualTo("150 ms");
    assertThat(Durations.human(Duration.ofSeconds(3))).isEqualTo("3 s");
    assertThat(Durations.human(Duration.ofSeconds(125))).isEqualTo("2 min 5 s");
    assertThat(Durations.human(Duration.ofMinutes(30))).isEqualTo("30 min");
    assertThat(Durations.human(Duration.ofMinutes(90).plusSeconds(7))).isEqualTo("1 h 30 min");
    assertThat(Durations.human(Duration.ofHours(2))).isEqualTo("2 h");
  }
}

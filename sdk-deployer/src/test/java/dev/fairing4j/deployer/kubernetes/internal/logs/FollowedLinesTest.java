package dev.fairing4j.deployer.kubernetes.internal.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.LogLine;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FollowedLinesTest {
  private static LogLine line(String replica, String text) {
    return new LogLine(replica, "pytorch", text, Optional.empty());
  }

  @Test
  void theOldestLinesGoFirstBeyondTheLineBound() {
    FollowedLines kept = new FollowedLines();
    for (int i = 0; i < FollowedLines.MAX_LINES + 5; i++) {
      kept.add(line("master-0", "line " + i));
    }

    List<LogLine> all = kept.missingFrom(Set.of(), LogSelection.ALL);
    assertThat(all).hasSize(FollowedLines.MAX_LINES);
    assertThat(all.get(0).text()).isEqualTo("line 5");
    assertThat(kept.dropped()).isTrue();
  }

  @Test
  void theCharacterBoundHoldsForLongLines() {
    FollowedLines kept = new FollowedLines();
    String long1k = "x".repeat(1024);
    for (int i = 0; i < 3000; i++) {
      kept.add(line("worker-0", long1k));
    }

    assertThat(kept.missingFrom(Set.of(), LogSelection.ALL).stream()
        .mapToLong(l -> l.text().length()).sum()).isLessThanOrEqualTo(FollowedLines.MAX_CHARS);
  }

  @Test
  void replicasStillPresentAndOtherContainersAreLeftToTheKubelet() {
    FollowedLines kept = new FollowedLines();
    kept.add(line("master-0", "a"));
    kept.add(new LogLine("worker-0", "metrics", "b", Optional.empty()), false);
    kept.add(line("worker-0", "c"));

    assertThat(kept.missingFrom(Set.of("master-0"), LogSelection.ALL))
        .as("a container(..) stream's lines are not the default snapshot's")
        .extracting(LogLine::text).containsExactly("c");
    assertThat(kept.missingFrom(Set.of(), LogSelection.ALL.withContainer("metrics")))
        .extracting(LogLine::text).containsExactly("b");
    assertThat(kept.dropped()).isFalse();
  }
}

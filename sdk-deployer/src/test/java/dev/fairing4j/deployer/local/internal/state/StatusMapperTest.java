package dev.fairing4j.deployer.local.internal.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** A local job's record as the SDK's status: pods with their reasons, and its Warning events. */
class StatusMapperTest {
  private static final String NO_GPU = "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.";

  private static JobRecord record(List<JobRecord.Event> events) {
    JobRecord.Replica pending = new JobRecord.Replica("Master", 0, "gpu-master-0", "master-0",
        "pytorch", "Pending", "Unschedulable", NO_GPU, 0, null, null, null, null, true);
    return new JobRecord(JobRecord.VERSION, "PyTorchJob", "gpu", "default",
        "2026-01-01T00:00:00Z", ProcessHandle.current().pid(), null, "bwrap", List.of(),
        Map.of(), List.of(new JobRecord.Condition("Created", "True", "PyTorchJobCreated", "",
            "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")), "2026-01-01T00:00:00Z", null,
        false, List.of(pending), events, false);
  }

  private static JobRecord.Event event(String type, String reason, String object,
      String message) {
    return new JobRecord.Event(type, reason, object, message, "2026-01-01T00:00:01Z");
  }

  @Test
  void warningEventsBecomeTheStatusWarningsAndTheUnschedulableReasonStays() {
    JobStatus status = StatusMapper.toStatus(record(List.of(
        event("Normal", "Created", "gpu", "created"),
        event("Warning", "FailedScheduling", "gpu-master-0", NO_GPU),
        event("Warning", "FailedScheduling", "gpu-master-0", NO_GPU))), true);

    assertThat(status.warnings()).containsExactly("FailedScheduling gpu-master-0: " + NO_GPU);
    assertThat(status.pods()).singleElement().satisfies(p -> {
      assertThat(p.reason()).contains("Unschedulable");
      assertThat(p.message()).contains(NO_GPU);
    });
    assertThat(status.toTable()).contains("Unschedulable: " + NO_GPU)
        .endsWith("EVENTS\nFailedScheduling gpu-master-0: " + NO_GPU);
  }

  @Test
  void aStatusKeepsTheNewestWarnings() {
    List<JobRecord.Event> events = new ArrayList<>();
    IntStream.range(0, 12).forEach(i ->
        events.add(event("Warning", "BackOff", "gpu-master-0", "restart " + i)));

    List<String> warnings = StatusMapper.toStatus(record(events), true).warnings();

    assertThat(warnings).hasSize(StatusMapper.STATUS_WARNINGS)
        .startsWith("BackOff gpu-master-0: restart 2").endsWith("BackOff gpu-master-0: restart 11");
  }
}

package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JobStatusTableTest {
  private final JobStatus status = new JobStatus("mnist", "PyTorchJob",
      List.of(JobCondition.isTrue("Created", "PyTorchJobCreated", "created"),
          JobCondition.isFalse("Running", "PyTorchJobRunning", ""),
          JobCondition.isTrue("Succeeded", "PyTorchJobSucceeded", "done <ok>")),
      Map.of("Master", new ReplicaStatus(0, 1, 0), "Worker", new ReplicaStatus(0, 1, 0)),
      Optional.of(Instant.parse("2026-01-01T00:00:00Z")),
      Optional.of(Instant.parse("2026-01-01T00:01:05Z")),
      List.of(new PodInfo("mnist-master-0", "Master", 0, "Succeeded", Optional.of("host1"),
          Optional.empty(), Optional.empty(), 0, Optional.of(0))));

  @Test
  void tableShowsJobConditionsReplicasAndPodsAligned() {
    assertThat(status.toTable()).isEqualTo("""
        JOB    KIND        PHASE      STARTED               DURATION
        mnist  PyTorchJob  Succeeded  2026-01-01T00:00:00Z  65s

        CONDITION  STATUS  REASON               MESSAGE
        Created    True    PyTorchJobCreated    created
        Running    False   PyTorchJobRunning
        Succeeded  True    PyTorchJobSucceeded  done <ok>

        REPLICA  ACTIVE  SUCCEEDED  FAILED
        Master   0       1          0
        Worker   0       1          0

        POD             PHASE      NODE   RESTARTS  EXIT  REASON
        mnist-master-0  Succeeded  host1  0         0""");
  }

  @Test
  void theOneLinerLabelsReplicaCountsInsteadOfABareTriple() {
    assertThat(status.toString()).isEqualTo("PyTorchJob mnist Succeeded (PyTorchJobSucceeded),"
        + " Master: 1 succeeded; Worker: 1 succeeded");
    JobStatus starting = new JobStatus("mnist", "PyTorchJob", List.of(),
        Map.of("Master", new ReplicaStatus(1, 0, 0), "Worker", new ReplicaStatus(1, 2, 1)),
        Optional.empty(), Optional.empty(), List.of());
    assertThat(starting.toString()).endsWith(
        "Master: 1 active; Worker: 1 active, 2 succeeded, 1 failed");
    JobStatus none = new JobStatus("mnist", "PyTorchJob", List.of(),
        Map.of("Worker", new ReplicaStatus(0, 0, 0)), Optional.empty(), Optional.empty(),
        List.of());
    assertThat(none.toString()).endsWith("Worker: none yet");
  }

  @Test
  void htmlEscapesCellsForNotebooks() {
    assertThat(status.toHtml()).startsWith("<table><thead><tr><th>JOB</th>")
        .contains("<td>done &lt;ok&gt;</td>")
        .doesNotContain("<ok>");
  }

  @Test
  void aJobWithNothingYetShowsOnlyItsLine() {
    JobStatus fresh = new JobStatus("mnist", "PyTorchJob", List.of(), Map.of(), Optional.empty(),
        Optional.empty(), List.of());
    assertThat(fresh.toTable()).isEqualTo("""
        JOB    KIND        PHASE    STARTED  DURATION
        mnist  PyTorchJob  Pending  -        -""");
  }

  @Test
  void aStuckJobShowsWhyItsPodWaitsAndItsWarningEvents() {
    JobStatus stuck = new JobStatus("mnist", "PyTorchJob",
        List.of(JobCondition.isTrue("Created", "PyTorchJobCreated", "")), Map.of(),
        Optional.empty(), Optional.empty(),
        List.of(new PodInfo("mnist-worker-0", "Worker", 0, "Pending", Optional.empty(),
            Optional.of("Unschedulable"),
            Optional.of("0/3 nodes are available: 3 Insufficient nvidia.com/gpu."), 0,
            Optional.empty())),
        List.of("FailedScheduling pod/mnist-worker-0: 0/3 nodes are available: 3 Insufficient"
            + " nvidia.com/gpu. (x4)", "Unschedulable pytorchjob/mnist: <no GPU>"));

    assertThat(stuck.toTable()).endsWith("""
        POD             PHASE    NODE  RESTARTS  EXIT  REASON
        mnist-worker-0  Pending  -     0         -     Unschedulable: 0/3 nodes are available: \
        3 Insufficient nvidia.com/gpu.

        EVENTS
        FailedScheduling pod/mnist-worker-0: 0/3 nodes are available: 3 Insufficient \
        nvidia.com/gpu. (x4)
        Unschedulable pytorchjob/mnist: <no GPU>""");
    assertThat(stuck.toHtml()).contains("<th>EVENTS</th>")
        .contains("<td>Unschedulable pytorchjob/mnist: &lt;no GPU&gt;</td>");
    // The one-liner stays short: the events are for the table.
    assertThat(stuck.toString()).isEqualTo("PyTorchJob mnist Created (PyTorchJobCreated)");
  }

  @Test
  void warningsAreCopiedAndDefaultToNone() {
    List<String> warnings = new java.util.ArrayList<>(List.of("BackOff pod/p: restarting"));
    JobStatus withWarnings = new JobStatus("mnist", "PyTorchJob", List.of(), Map.of(),
        Optional.empty(), Optional.empty(), List.of(), warnings);
    warnings.clear();

    assertThat(withWarnings.warnings()).containsExactly("BackOff pod/p: restarting");
    assertThat(status.warnings()).isEmpty();
    assertThat(status.toTable()).doesNotContain("EVENTS");
  }
}

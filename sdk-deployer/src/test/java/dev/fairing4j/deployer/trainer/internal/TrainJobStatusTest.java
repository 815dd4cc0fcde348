package dev.fairing4j.deployer.trainer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobCondition;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ReplicaStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The TrainJob status mapping (CONTRACT.md (d)) over every combination of the Trainer's three
 * condition types (each absent, True or False), with and without Kueue's queue label, and with
 * the trainer job not yet ready, ready by {@code jobsStatus}, or (where {@code jobsStatus} is not
 * reported) with all, some or none of the node pods running: 3^3 x 2 x 5 = 270 cases. The oracle
 * is the contract's order, written out here independently of the code.
 */
class TrainJobStatusTest {
  private static final List<String> TYPES = List.of("Suspended", "Complete", "Failed");
  private static final List<String> PROGRESS = List.of("nothing", "jobsStatus not ready",
      "jobsStatus ready", "pods all running", "pods one running");

  static Stream<Arguments> everyCombination() {
    List<Arguments> cases = new ArrayList<>();
    for (int code = 0; code < 27; code++) {
      for (boolean queued : List.of(false, true)) {
        for (String progress : PROGRESS) {
          List<Map<String, Object>> conditions = new ArrayList<>();
          Map<String, String> states = new LinkedHashMap<>();
          int rest = code;
          for (String type : TYPES) {
            int state = rest % 3; // 0 absent, 1 True, 2 False
            rest /= 3;
            if (state > 0) {
              String status = state == 1 ? "True" : "False";
              states.put(type, status);
              conditions.add(condition(type, status));
            }
          }
          cases.add(Arguments.of(states + (queued ? " queued" : "") + " " + progress,
              states, queued, progress, conditions));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyCombination")
  void phaseFollowsTheContractsOrder(String description, Map<String, String> states,
      boolean queued, String progress, List<Map<String, Object>> conditions) {
    Map<String, Object> job = trainJob(conditions, queued, progress);
    List<PodInfo> pods = progress.startsWith("pods") ? pods(progress) : List.of();

    JobPhase expected;
    if ("True".equals(states.get("Failed"))) {
      expected = JobPhase.FAILED;
    } else if ("True".equals(states.get("Complete"))) {
      expected = JobPhase.SUCCEEDED;
    } else if ("True".equals(states.get("Suspended"))) {
      expected = queued ? JobPhase.QUEUED : JobPhase.SUSPENDED;
    } else if (progress.equals("jobsStatus ready") || progress.equals("pods all running")) {
      expected = JobPhase.RUNNING;
    } else {
      expected = JobPhase.PENDING;
    }

    JobPhase phase = JobStatus.phaseOf(TrainJobStatus.conditions(job, pods));

    assertThat(phase).as(description).isEqualTo(expected);
  }

  @Test
  void everyCombinationIsGeneratedOnce() {
    assertThat(everyCombination().map(a -> a.get()[0]).distinct().count()).isEqualTo(270);
  }

  @Test
  void completeIsReportedAsSucceededWithItsReasonAndTime() {
    Map<String, Object> job = trainJob(List.of(condition("Complete", "True")), false, "");

    List<JobCondition> conditions = TrainJobStatus.conditions(job, List.of());

    assertThat(conditions).singleElement().satisfies(c -> {
      assertThat(c.type()).isEqualTo("Succeeded");
      assertThat(c.reason()).isEqualTo("CompleteReason");
      assertThat(c.lastTransitionTime()).contains(Instant.parse("2026-11-24T12:00:00Z"));
    });
    assertThat(TrainJobStatus.completionTime(job)).contains(Instant.parse(
        "2026-11-24T12:00:00Z"));
  }

  @Test
  void aQueuedJobSaysWhichQueue() {
    Map<String, Object> job = trainJob(List.of(condition("Suspended", "True")), true, "");

    assertThat(TrainJobStatus.conditions(job, List.of())).last().satisfies(c -> {
      assertThat(c.type()).isEqualTo("Queued");
      assertThat(c.message()).contains("Kueue queue team-queue");
    });
  }

  @Test
  void replicaCountsArePodsPerReplicatedJob() {
    List<PodInfo> pods = List.of(pod("dataset-initializer", 0, "Succeeded"),
        pod("node", 0, "Running"), pod("node", 1, "Failed"), pod("node", 2, "Pending"));

    assertThat(TrainJobStatus.replicas(pods)).containsExactly(
        Map.entry("dataset-initializer", new ReplicaStatus(0, 1, 0)),
        Map.entry("node", new ReplicaStatus(1, 0, 1)));
  }

  private static Map<String, Object> trainJob(List<Map<String, Object>> conditions,
      boolean queued, String progress) {
    Map<String, Object> metadata = new LinkedHashMap<>(Map.of("name", "mnist",
        "creationTimestamp", "2026-11-24T11:00:00Z"));
    if (queued) {
      metadata.put("labels", Map.of("kueue.x-k8s.io/queue-name", "team-queue"));
    }
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("conditions", conditions);
    if (progress.startsWith("jobsStatus")) {
      int ready = progress.equals("jobsStatus ready") ? 1 : 0;
      status.put("jobsStatus", List.of(Map.of("name", "node", "ready", ready, "active", 1,
          "succeeded", 0, "failed", 0, "suspended", 0)));
    }
    return Map.of("metadata", metadata, "spec", Map.of("trainer", Map.of("numNodes", 2)),
        "status", status);
  }

  private static List<PodInfo> pods(String progress) {
    return List.of(pod("node", 0, "Running"),
        pod("node", 1, progress.endsWith("all running") ? "Running" : "Pending"));
  }

  private static PodInfo pod(String job, int index, String phase) {
    return new PodInfo("mnist-" + job + "-0-" + index + "-x7k2p", job, index, phase,
        Optional.empty(), Optional.empty(), Optional.empty(), 0, Optional.empty());
  }

  private static Map<String, Object> condition(String type, String status) {
    return Map.of("type", type, "status", status, "reason", type + "Reason", "message",
        type + " is " + status, "lastTransitionTime", "2026-11-24T12:00:00Z");
  }
}

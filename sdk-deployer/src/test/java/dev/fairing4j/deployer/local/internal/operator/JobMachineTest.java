package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.ManifestReader;
import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.local.Manifests;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StatusMapper;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/**
 * The local operator's state machine driven through every rule the README promises, with no
 * process, thread or clock: a recording {@link MachineEffects} starts "processes" (numbers),
 * notes every signal, and runs what was scheduled when the test moves its virtual clock. Restart
 * policies and kubelet's back-off, the backoff limit, success with and without a Master (elastic
 * included), the clean-pod policy, deadlines, stop and delete, GPUs, a batch Job's parallelism.
 */
class JobMachineTest {
  private static final List<String> CMD = List.of("python", "t.py");
  private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

  private final FakeEffects effects = new FakeEffects();

  @Test
  void theMasterSucceedingEndsThePyTorchJobAndCleanPodPolicyRunningStopsItsWorkers() {
    JobMachine machine = begin(pyTorch("p", 1, "Never", Map.of("cleanPodPolicy", "Running")));
    assertThat(effects.launched).containsExactly("p-master-0#1", "p-worker-0#1");
    assertThat(condition(machine, "Running")).isPresent();

    assertThat(machine.exited("p-master-0", 1, 0)).isTrue();

    assertThat(condition(machine, "Succeeded")).hasValueSatisfying(c ->
        assertThat(c.message()).isEqualTo("PyTorchJob p is successfully completed."));
    assertThat(effects.terminated).containsExactly("p-worker-0");
    assertThat(machine.isSettled()).as("the worker still stops").isFalse();
    effects.advance(Duration.ofMillis(4999));
    assertThat(effects.killed).isEmpty();
    effects.advance(Duration.ofMillis(1));
    assertThat(effects.killed).as("SIGKILL after the 5 s grace").containsExactly("p-worker-0");
    machine.exited("p-worker-0", 1, 137);
    assertThat(machine.isSettled()).isTrue();
    assertThat(replica(machine, "p-worker-0").reason()).isEqualTo(StatusMapper.STOPPED);
  }

  @Test
  void underCleanPodPolicyNoneTheWorkersRunOnAndAreNotRestartedWhenTheyFailAfterTheEnd() {
    JobMachine machine = begin(pyTorch("p", 1, "OnFailure", Map.of()));

    machine.exited("p-master-0", 1, 0);
    assertThat(condition(machine, "Succeeded")).isPresent();
    assertThat(effects.terminated).isEmpty();
    assertThat(machine.isSettled()).isFalse();
    machine.exited("p-worker-0", 1, 1);

    assertThat(effects.launched).hasSize(2);
    assertThat(effects.pending()).isZero();
    assertThat(machine.isSettled()).isTrue();
    assertThat(replica(machine, "p-worker-0").message())
        .isEqualTo("exited with code 1 after the job ended; not restarted");
  }

  @Test
  void withoutAMasterEveryWorkerMustSucceedAsInAnElasticJob() {
    JobMachine machine = begin(workersOnly("e", 2, Map.of("minReplicas", 1, "maxReplicas", 2)));

    machine.exited("e-worker-1", 1, 0);
    assertThat(condition(machine, "Succeeded")).isEmpty();
    machine.exited("e-worker-0", 1, 0);

    assertThat(condition(machine, "Succeeded")).isPresent();
    assertThat(machine.isSettled()).isTrue();
  }

  @Test
  void onFailureRestartsInPlaceAfterKubeletsBackOffDoublingFrom200Milliseconds() {
    JobMachine machine = begin(pyTorch("p", 1, "OnFailure", Map.of()));

    machine.exited("p-worker-0", 1, 1);
    assertThat(replica(machine, "p-worker-0").reason()).isEqualTo("CrashLoopBackOff");
    effects.advance(Duration.ofMillis(199));
    assertThat(effects.launched).hasSize(2);
    effects.advance(Duration.ofMillis(1));
    assertThat(effects.launched).last().isEqualTo("p-worker-0#2");
    machine.exited("p-worker-0", 2, 1);
    effects.advance(Duration.ofMillis(399));
    assertThat(effects.launched).hasSize(3);
    effects.advance(Duration.ofMillis(1));
    assertThat(effects.launched).last().isEqualTo("p-worker-0#3");

    assertThat(replica(machine, "p-worker-0").restarts()).isEqualTo(2);
    assertThat(replica(machine, "p-worker-0").phase()).isEqualTo("Running");
    assertThat(condition(machine, "Failed")).isEmpty();
  }

  @Test
  void exitCodeRecreatesThePodForASignalAndFailsTheJobForAnErrorCode() {
    JobMachine machine = begin(pyTorch("p", 1, "ExitCode", Map.of()));

    machine.exited("p-worker-0", 1, 137);
    assertThat(condition(machine, "Restarting")).hasValueSatisfying(c -> assertThat(c.message())
        .isEqualTo("PyTorchJob p is restarting because 1 Worker replica(s) failed."));
    effects.runDue();
    assertThat(effects.launched).last().isEqualTo("p-worker-0#2");
    machine.exited("p-worker-0", 2, 1);

    assertThat(condition(machine, "Failed")).hasValueSatisfying(c -> assertThat(c.message())
        .isEqualTo("PyTorchJob p is failed because 1 Worker replica(s) failed."));
    assertThat(effects.terminated).as("the success rules leave pods to cleanPodPolicy None")
        .isEmpty();
  }

  @Test
  void theBackoffLimitCountsRestartsOfEveryReplicaAndThenStopsEveryPod() {
    JobMachine machine = begin(pyTorch("p", 1, "OnFailure", Map.of("backoffLimit", 1)));

    machine.exited("p-worker-0", 1, 1);
    effects.runDue();
    machine.exited("p-master-0", 1, 1);

    assertThat(condition(machine, "Failed")).hasValueSatisfying(c -> assertThat(c.message())
        .isEqualTo("PyTorchJob p has failed because it has reached the specified backoff"
            + " limit"));
    assertThat(effects.terminated).as("the limit stops every pod whatever cleanPodPolicy says")
        .containsExactly("p-worker-0");
    assertThat(replica(machine, "p-worker-0").restarts()).isOne();
    assertThat(replica(machine, "p-master-0").restarts()).isZero();
  }

  @Test
  void aDeadlineFailsTheJobAndStopsEveryPodWhateverTheCleanPodPolicy() {
    JobMachine machine = begin(pyTorch("p", 1, "OnFailure", Map.of("activeDeadlineSeconds", 30,
        "cleanPodPolicy", "None")));

    effects.advance(Duration.ofSeconds(29));
    assertThat(condition(machine, "Failed")).isEmpty();
    effects.advance(Duration.ofSeconds(1));

    assertThat(condition(machine, "Failed")).hasValueSatisfying(c -> {
      assertThat(c.message()).isEqualTo(
          "PyTorchJob p has failed because it was active longer than specified deadline");
      assertThat(c.lastTransitionTime()).isEqualTo(T0.plusSeconds(30).toString());
    });
    assertThat(effects.terminated).containsExactly("p-master-0", "p-worker-0");
    machine.exited("p-master-0", 1, 143);
    machine.exited("p-worker-0", 1, 143);
    assertThat(machine.isSettled()).isTrue();
  }

  @Test
  void aJobThatEndsInTimeCallsItsDeadlineOff() {
    JobMachine machine = begin(pyTorch("p", 0, "Never", Map.of("activeDeadlineSeconds", 30)));
    machine.exited("p-master-0", 1, 0);
    effects.advance(Duration.ofMinutes(1));
    assertThat(condition(machine, "Failed")).isEmpty();
    assertThat(condition(machine, "Succeeded")).isPresent();
  }

  @Test
  void aPendingRestartEndsWithTheJobKeepingTheReplicasLastExit() {
    JobMachine machine = begin(pyTorch("p", 1, "OnFailure", Map.of()));
    machine.exited("p-master-0", 1, 1);       // back-off: restart pending
    machine.stop("stopped by the user");

    assertThat(effects.pending()).as("the restart is called off, the grace kill waits")
        .isOne();
    assertThat(replica(machine, "p-master-0").phase()).isEqualTo("Failed");
    assertThat(replica(machine, "p-master-0").message())
        .isEqualTo("exited with code 1; not restarted: the job had ended");
    assertThat(replica(machine, "p-master-0").restarts())
        .as("a restart called off is not counted: its log shows one run").isZero();
    assertThat(effects.terminated).containsExactly("p-worker-0");
    assertThat(condition(machine, "Failed")).hasValueSatisfying(c ->
        assertThat(c.message()).isEqualTo("stopped by the user"));
  }

  @Test
  void deletionStopsEveryProcessAndAnExitOfAnEarlierRunChangesNothing() {
    JobMachine machine = begin(pyTorch("p", 1, "OnFailure", Map.of()));
    machine.exited("p-worker-0", 1, 1);
    effects.runDue();

    assertThat(machine.exited("p-worker-0", 1, 1)).as("a stale exit").isFalse();
    machine.delete();
    machine.exited("p-master-0", 1, 143);
    machine.exited("p-worker-0", 2, 143);

    assertThat(machine.isDeleted()).isTrue();
    assertThat(machine.isSettled()).isTrue();
    assertThat(effects.leftoversRemoved).containsExactly("p-master-0", "p-worker-0");
    assertThat(effects.launched).hasSize(3);
  }

  @Test
  void aReplicaAskingForMoreGpusThanTheMachineHasWaitsUnschedulable() {
    JobMachine machine = new JobMachine(plan(pyTorch("g", 0, "Never", Map.of())), T0, effects);
    machine.begin(0, false, Map.of("g-master-0", 2L));

    assertThat(effects.launched).isEmpty();
    assertThat(replica(machine, "g-master-0").reason()).isEqualTo("Unschedulable");
    assertThat(replica(machine, "g-master-0").message()).startsWith(
        "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
    JobMachine anyway = new JobMachine(plan(pyTorch("g", 0, "Never", Map.of())), T0, effects);
    anyway.begin(0, true, Map.of("g-master-0", 2L));
    assertThat(effects.launched).containsExactly("g-master-0#1");
  }

  @Test
  void aBatchJobRunsAtMostParallelismPodsAndNeedsAllCompletions() {
    Map<String, Object> job = new LinkedHashMap<>(Manifests.indexedJob("b", 3, CMD).objects()
        .get(1));
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = new LinkedHashMap<>((Map<String, Object>) job.get("spec"));
    spec.put("parallelism", 2);
    job.put("spec", spec);
    JobMachine machine = begin(new RenderedJob("Job", "b", "default", List.of(job)));

    assertThat(effects.launched).containsExactly("b-0#1", "b-1#1");
    machine.exited("b-0", 1, 0);
    assertThat(effects.launched).last().isEqualTo("b-2#1");
    machine.exited("b-1", 1, 0);
    assertThat(condition(machine, "Succeeded")).isEmpty();
    machine.exited("b-2", 1, 0);
    assertThat(condition(machine, "Succeeded")).isPresent();
    assertThat(machine.isSettled()).isTrue();
  }

  @Test
  void aReplicaThatCannotStartFailsTheJobUnderNever() {
    effects.failLaunches = true;
    JobMachine machine = begin(pyTorch("p", 0, "Never", Map.of()));

    assertThat(replica(machine, "p-master-0").reason()).isEqualTo("StartError");
    assertThat(condition(machine, "Failed")).isPresent();
  }

  private JobMachine begin(RenderedJob job) {
    JobMachine machine = new JobMachine(plan(job), T0, effects);
    machine.begin(0, false, Map.of());
    return machine;
  }

  private static JobPlan plan(RenderedJob job) {
    return ManifestReader.read(job);
  }

  private static RenderedJob pyTorch(String name, int workers, String restartPolicy,
      Map<String, Object> runPolicy) {
    return Manifests.pyTorchJob(name, workers, CMD, restartPolicy, runPolicy);
  }

  private static RenderedJob workersOnly(String name, int workers,
      Map<String, Object> elasticPolicy) {
    Map<String, Object> container = Manifests.container("pytorch", CMD, Map.of(), 23456,
        "pytorchjob-port");
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("pytorchReplicaSpecs", Map.of("Worker", Manifests.replicaSpec(workers, "OnFailure",
        container, List.of())));
    spec.put("elasticPolicy", elasticPolicy);
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", "kubeflow.org/v1");
    object.put("kind", "PyTorchJob");
    object.put("metadata", Map.of("name", name, "namespace", "default"));
    object.put("spec", spec);
    return new RenderedJob("PyTorchJob", name, "default", List.of(object));
  }

  private JobRecord record(JobMachine machine) {
    return machine.record("node", ProcessHandle.current(), "fake", Map.of(), false);
  }

  private Optional<JobRecord.Condition> condition(JobMachine machine, String type) {
    return record(machine).conditions().stream()
        .filter(c -> c.type().equals(type) && c.status().equals("True")).findFirst();
  }

  private JobRecord.Replica replica(JobMachine machine, String pod) {
    return record(machine).replicas().stream().filter(r -> r.podName().equals(pod))
        .findFirst().orElseThrow();
  }

  /** Processes are numbers, signals are notes, timers run when the virtual clock passes them. */
  private static final class FakeEffects implements MachineEffects {
    final List<String> launched = new ArrayList<>();
    final List<String> terminated = new ArrayList<>();
    final List<String> killed = new ArrayList<>();
    final List<String> leftoversRemoved = new ArrayList<>();
    boolean failLaunches;
    private Instant now = T0;
    private long pids = 1000;
    private long order;
    private final PriorityQueue<Scheduled> timers = new PriorityQueue<>(
        Comparator.comparing(Scheduled::at).thenComparingLong(Scheduled::order));

    private record Scheduled(Instant at, long order, Runnable task, boolean[] cancelled) {}

    @Override
    public Instant now() {
      return now;
    }

    @Override
    public Started launch(ReplicaId id, int attempt) throws IOException {
      if (failLaunches) {
        throw new IOException("no such file: python");
      }
      launched.add(id.podName() + "#" + attempt);
      return new Started(++pids, now);
    }

    @Override
    public void terminate(String pod) {
      terminated.add(pod);
    }

    @Override
    public void kill(String pod) {
      killed.add(pod);
    }

    @Override
    public Timer schedule(Duration delay, Runnable task) {
      boolean[] cancelled = {false};
      timers.add(new Scheduled(now.plus(delay), order++, task, cancelled));
      return () -> cancelled[0] = true;
    }

    @Override
    public void removeLeftovers(String pod) {
      leftoversRemoved.add(pod);
    }

    @Override
    public boolean deleting() {
      return false;
    }

    long pending() {
      return timers.stream().filter(t -> !t.cancelled()[0]).count();
    }

    void advance(Duration by) {
      Instant until = now.plus(by);
      while (!timers.isEmpty() && !timers.peek().at().isAfter(until)) {
        Scheduled next = timers.poll();
        now = next.at();
        if (!next.cancelled()[0]) {
          next.task().run();
        }
      }
      now = until;
    }

    void runDue() {
      while (timers.stream().anyMatch(t -> !t.cancelled()[0])) {
        Scheduled next = timers.stream().filter(t -> !t.cancelled()[0])
            .min(Comparator.comparing(Scheduled::at)).orElseThrow();
        advance(Duration.between(now, next.at()));
      }
    }
  }
}

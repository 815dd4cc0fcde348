package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobEvent;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.OnTimeout;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.kubernetes.KubernetesTrainingJob;
import dev.fairing4j.deployer.storage.ClusterStorage;
import dev.fairing4j.deployer.storage.HostPathVolume;
import dev.fairing4j.deployer.storage.StorageConflictException;
import dev.fairing4j.deployer.storage.VolumeClaim;
import dev.fairing4j.deployer.storage.Volumes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only a real cluster shows, through the SDK's front door: logs of every replica as the
 * kubelet streams them, a container restarted in place by the kubelet under OnFailure, failure
 * reports with the runtime's exit codes and the operator's events, deletion cascading through
 * the garbage collector, the waits that suspend or delete a job at their deadline, and a volume
 * the volume controller has Released. The
 * scripts other than the training one need only the base's Python, so they start in a second.
 */
@Tag(Tags.CLUSTER)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterBehaviourIT {
  private static final String DATA = "fashion-mnist";
  /** Sleeps until deleted; exits on SIGTERM at once (as PID 1 python would ignore it). */
  private static final String SLEEPER = """
      import signal, sys, time
      signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
      print("sleeping", flush=True)
      time.sleep(600)
      """;

  private static ClusterKit kit;
  private static String namespace;
  @TempDir static Path scripts;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
    namespace = kit.namespace();
    kit.hostPathClaim(namespace, DATA, Tools.fashionMnist().toString());
  }

  @Test
  void followStreamsEveryReplicasTrainingLogFromTheKubelet() {
    String name = "follow-mnist";
    // The README's main job, with the data from a claim since pods cannot download it.
    PyTorchJobDeployer deployer = Deployers.pyTorchJob(name).workers(2).namespace(namespace)
        .args(new FashionMnist(name, 1, 300, 300, 2).scriptArgs())
        .mutate(Mutators.pvc(DATA, FashionMnist.DATA_DIR).readOnly())
        .replaceExisting()
        .on(kit.cluster());
    TrainingJob job = Fairing.pipeline()
        .preprocessor(FashionMnist.script())
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository(name)))
        .deployer(deployer)
        .progress(ProgressListener.NONE)
        .run();
    List<String> lines = new CopyOnWriteArrayList<>();
    // Started before any pod exists: the stream finds the pods as the operator creates them.
    try (LogStream logs = job.logs().follow(line -> lines.add(line.toString()))) {
      JobStatus end = job.waitForCompletion(Duration.ofMinutes(3));
      assertThat(logs.awaitEnd(Duration.ofSeconds(30))).as("the stream ends with the job")
          .isTrue();
      assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    } finally {
      System.out.println(String.join("\n", lines));
    }

    for (int rank = 0; rank < 3; rank++) {
      String replica = rank == 0 ? "master-0" : "worker-" + (rank - 1);
      assertThat(lines).contains("[" + replica + "] Using distributed PyTorch with gloo"
          + " backend, rank " + rank + " of 3");
      assertThat(lines).anyMatch(l -> l.startsWith("[" + replica + "] training took "));
    }
    assertThat(lines).anyMatch(l -> l.matches("\\[master-0\\] accuracy=0\\.\\d{4}"))
        .contains("[master-0] saved model to " + FashionMnist.MODELS_PATH + "/mnist_cnn.pt");
    // Each line once, though a stream may have been reopened.
    assertThat(lines.stream().filter(l -> l.contains("Using distributed PyTorch"))).hasSize(3);
    // Only the training container's lines: the operator's init container, which waits for the
    // Master's name with nslookup, is shown only when stuck.
    assertThat(lines).noneMatch(l -> l.matches("\\[worker-\\d\\] (Server|Address|Name):.*"));
    // The metrics, from the pods' logs after the fact: per replica, with the pods' timestamps.
    var metrics = job.metrics();
    assertThat(metrics.replicas()).containsExactly("master-0", "worker-0", "worker-1");
    assertThat(metrics.latest("master-0", "accuracy")).isPresent();
    assertThat(metrics.series("worker-1", "loss")).isNotEmpty();
    job.delete();
  }

  @Test
  void aCrashedReplicaIsRestartedInPlaceAndBothRunsAreLogged(@TempDir Path release)
      throws IOException {
    Path script = Files.writeString(scripts.resolve("crash_once.py"), """
        import os, sys, time
        marker = "/scratch/ran-once"
        if not os.path.exists(marker):
            open(marker, "w").close()
            print("first run: failing on purpose", flush=True)
            sys.exit(7)
        print("second run: restarted in the same pod", flush=True)
        # The kubelet keeps the first run's log only while the pod runs: stay until released.
        deadline = time.time() + 120
        while not os.path.exists("/release/go") and time.time() < deadline:
            time.sleep(0.2)
        """);
    // emptyDir lives as long as the pod, so the second run sees what the first one wrote.
    TrainingJob job = pipeline(script, Deployers.pyTorchJob("crash-once").workers(0)
        .restartPolicy(RestartPolicy.ON_FAILURE)
        .mutate(Mutators.emptyDir("scratch", "/scratch"))
        .mutate(Mutators.hostPath(release.toString(), "/release"))).run();
    List<String> lines = new CopyOnWriteArrayList<>();
    JobStatus end;
    try (LogStream logs = job.logs().follow(line -> lines.add(line.toString()))) {
      ClusterKit.await("both runs in the log", Duration.ofMinutes(2),
          () -> lines.contains("[master-0] second run: restarted in the same pod")
              && lines.contains("[master-0] first run: failing on purpose"),
          lines::toString);
      // While it runs again, the restart and the first run's exit code are in the status.
      assertThat(job.status().pods()).singleElement().satisfies(pod -> {
        assertThat(pod.phase()).isEqualTo("Running");
        assertThat(pod.restarts()).isEqualTo(1);
        assertThat(pod.exitCode()).contains(7);
      });
      Files.writeString(release.resolve("go"), "");
      end = job.waitForCompletion(Duration.ofMinutes(2));
      assertThat(logs.awaitEnd(Duration.ofSeconds(30))).isTrue();
    }

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    // Each line once. Following, the first run's line may come second: when the pod's status
    // lags the kubelet, the restart is seen only after the new run's first line.
    assertThat(lines).containsExactlyInAnyOrder("[master-0] first run: failing on purpose",
        "[master-0] second run: restarted in the same pod");
    assertThat(end.pods()).singleElement().satisfies(pod -> {
      assertThat(pod.name()).isEqualTo("crash-once-master-0");
      assertThat(pod.restarts()).isEqualTo(1);
      assertThat(pod.exitCode()).contains(0);
    });
    assertThat(end.toTable()).containsPattern("crash-once-master-0\\s+Succeeded\\s+\\S+\\s+1\\s");
    // The cluster's own account of it: the operator's, the scheduler's and the kubelet's events.
    List<JobEvent> events = job.events();
    System.out.println(events.stream().map(JobEvent::toString)
        .collect(java.util.stream.Collectors.joining("\n")));
    assertThat(events).extracting(e -> e.type() + " " + e.reason() + " " + e.object())
        .contains("Normal SuccessfulCreatePod pytorchjob/crash-once",
            "Normal Scheduled pod/crash-once-master-0", "Normal Started pod/crash-once-master-0");
    assertThat(events).extracting(JobEvent::time).isSorted();
    job.delete();
  }

  @Test
  void aFailedReplicaIsReportedWithItsExitCodeLastLinesAndEvents() throws IOException {
    Path script = Files.writeString(scripts.resolve("fail.py"), """
        import os, sys
        if os.environ["RANK"] != "0":
            print("worker fine", flush=True)
            sys.exit(0)
        for step in range(3):
            print(f"step {step} loss=2.30", flush=True)
        print("fatal: the data set is empty", file=sys.stderr, flush=True)
        sys.exit(3)
        """);
    TrainingJob job = pipeline(script, Deployers.pyTorchJob("fails").workers(1)
        .restartPolicy(RestartPolicy.NEVER)).run();

    try {
      assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMinutes(3)))
          .isInstanceOfSatisfying(JobFailedException.class, e -> {
            System.out.println(e.getMessage());
            assertThat(e.status().phase()).isEqualTo(JobPhase.FAILED);
            assertThat(e.failedReplica()).contains("master-0");
            assertThat(e.exitCode()).contains(3);
            assertThat(e.lastLines()).contains("step 2 loss=2.30",
                "fatal: the data set is empty");
            assertThat(e.getMessage()).contains("replica master-0 exited with code 3",
                "fatal: the data set is empty");
            assertThat(e.status().pods()).filteredOn(p -> p.name().equals("fails-master-0"))
                .singleElement().satisfies(p -> {
                  assertThat(p.phase()).isEqualTo("Failed");
                  assertThat(p.reason()).contains("Error");
                  assertThat(p.message()).contains("exit code 3");
                });
            assertThat(e.warnings()).anyMatch(w -> w.contains("fails-master-0")
                && w.contains("3"));
          });
    } finally {
      job.delete();
    }
  }

  @Test
  void aScriptThatKeepsCrashingUnderDefaultSettingsFailsWithItsReasonAfterTheBackoffLimit()
      throws IOException {
    // Nothing set: OnFailure, and the backoffLimit the SDK writes. At the limit the operator
    // deletes the pods before it marks the job Failed, so the exit code comes from its event and
    // the last lines from what the followed log delivered.
    Path script = Files.writeString(scripts.resolve("crash.py"), """
        import sys
        print("loading data", flush=True)
        print("cannot train: no data", file=sys.stderr, flush=True)
        sys.exit(1)
        """);
    TrainingJob job = pipeline(script, Deployers.pyTorchJob("crashes").workers(0)).run();
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

    try (var logs = job.logs().follow(seen::add)) {
      assertThatThrownBy(() -> job.waitForCompletion(Duration.ofMinutes(3)))
          .isInstanceOfSatisfying(JobFailedException.class, e -> {
            System.out.println(e.getMessage());
            assertThat(e.getMessage()).contains("reached the specified backoff limit")
                .contains(".backoffLimit(n)");
            assertThat(e.failedReplica()).contains("master-0");
            assertThat(e.exitCode()).contains(1);
            // In the log's order, which need not be the script's: containerd stamps stdout
            // and stderr as its two readers see them, and two lines written a moment apart on
            // the two streams came in either order (seen in CI under load).
            assertThat(e.lastLines()).contains("cannot train: no data");
          });
    } finally {
      job.delete();
    }
    // A run is readable until the next one ends (the kubelet keeps one dead container) and the
    // last one until the operator deletes the pod: the follower, looking every poll, sees some.
    assertThat(seen).filteredOn(l -> l.endsWith("loading data")).isNotEmpty();
  }

  /**
   * The README's pattern loses no line on a real cluster: the Workers print their last lines
   * after the Master's success ended the job, and closing the follower right after the wait
   * still delivers every line of every replica, exactly once.
   */
  @RepeatedTest(3)
  void closingTheFollowerAfterTheWaitDeliversEveryLineOfEveryReplicaOnce() throws IOException {
    Path script = Files.writeString(scripts.resolve("lines.py"), """
        import os, time
        rank = int(os.environ["RANK"])
        for i in range(40):
            print(f"rank {rank} line {i}", flush=True)
        if rank > 0:
            time.sleep(0.5 * rank)
            print(f"rank {rank} done", flush=True)
        """);
    TrainingJob job = pipeline(script, Deployers.pyTorchJob("lines").workers(2)).run();
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

    try {
      try (var logs = job.logs().stream(line -> seen.add(line.text()))) {
        assertThat(job.waitForCompletion(Duration.ofMinutes(3)).phase())
            .isEqualTo(JobPhase.SUCCEEDED);
      }
      java.util.Map<String, Long> counts = seen.stream().collect(java.util.stream.Collectors
          .groupingBy(java.util.function.Function.identity(),
              java.util.stream.Collectors.counting()));
      try {
        for (int rank = 0; rank < 3; rank++) {
          for (int i = 0; i < 40; i++) {
            assertThat(counts.get("rank " + rank + " line " + i))
                .as("rank %d line %d delivered once", rank, i).isEqualTo(1L);
          }
        }
        assertThat(counts).containsEntry("rank 1 done", 1L).containsEntry("rank 2 done", 1L);
      } catch (AssertionError e) {
        // What the cluster did, for a failure seen only under CI's load.
        System.out.println(kit.run(List.of("get", "pytorchjob", "lines", "-n", namespace,
            "-o", "jsonpath={.status}")).output());
        System.out.println(kit.run(List.of("get", "pods", "-n", namespace, "-l",
            "training.kubeflow.org/job-name=lines", "-o", "jsonpath={range .items[*]}"
                + "{.metadata.name} {.status.phase} {.status.initContainerStatuses}"
                + " {.status.containerStatuses}{\"\\n\"}{end}")).output());
        throw e;
      }
    } finally {
      job.delete();
    }
  }

  /**
   * A PyTorchJob of Workers only, as upstream's elastic examples write it, on the real operator:
   * torchrun forms one world of both Workers through its rendezvous on Worker 0, its first
   * attempt fails on purpose and torchrun restarts the workers within the elastic policy's
   * {@code maxRestarts}, and the job succeeds when both Workers have.
   */
  @Test
  void aJobOfWorkersOnlyFormsOneWorldThroughTorchrunAndRestartsWithinMaxRestarts()
      throws IOException {
    Path script = Files.writeString(scripts.resolve("elastic_world.py"), """
        import os, sys
        import torch, torch.distributed as dist
        if os.environ["TORCHELASTIC_RESTART_COUNT"] == "0":
            sys.exit("first attempt fails on purpose")
        dist.init_process_group("gloo")
        t = torch.tensor([1.0])
        dist.all_reduce(t)
        print(f"rank={dist.get_rank()} world={dist.get_world_size()} sum={t.item():.0f}",
              flush=True)
        dist.destroy_process_group()
        """);
    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script).torchrun())
        .builder(Builders.jib(kit.base().reference())
            .pushTo(ClusterKit.repository("behaviour")))
        .deployer(Deployers.pyTorchJob("workers-only").withoutMaster().workers(2)
            .elastic(2, 2, 1).restartPolicy(RestartPolicy.NEVER).namespace(namespace)
            .replaceExisting().on(kit.cluster()))
        .progress(ProgressListener.NONE).run();
    try {
      assertThat(job.waitForCompletion(Duration.ofMinutes(4)).phase())
          .isEqualTo(JobPhase.SUCCEEDED);
      List<String> lines = job.logs().snapshot().stream()
          .map(l -> "[" + l.replica() + "] " + l.text()).toList();
      assertThat(lines).contains("[worker-0] rank=0 world=2 sum=2",
          "[worker-1] rank=1 world=2 sum=2");
      assertThat(job.status().pods()).extracting(p -> p.name())
          .containsExactlyInAnyOrder("workers-only-worker-0", "workers-only-worker-1");
    } finally {
      job.delete();
    }
  }

  @Test
  void deletingAJobTakesItsPodsAndServicesWithIt() throws IOException {
    String name = "cascade";
    TrainingJob job = pipeline(sleeper(), Deployers.pyTorchJob(name).workers(2)).run();
    String selector = "training.kubeflow.org/job-name=" + name;
    ClusterKit.await("3 pods Running", Duration.ofMinutes(2),
        () -> job.status().pods().stream().filter(p -> p.phase().equals("Running")).count() == 3,
        () -> job.status().toTable());
    assertThat(kit.names("services", namespace, selector)).containsExactlyInAnyOrder(
        name + "-master-0", name + "-worker-0", name + "-worker-1");

    job.delete();

    // Foreground deletion returned only once the garbage collector had removed the dependents.
    assertThat(kit.names("pods", namespace, selector)).isEmpty();
    assertThat(kit.names("services", namespace, selector)).isEmpty();
    assertThat(kit.run(List.of("get", "pytorchjob", "-n", namespace, name)).output())
        .contains("NotFound");
  }

  @Test
  void aWaitThatTimesOutSuspendsTheJobAndTheOperatorRemovesItsPods() throws IOException {
    KubernetesTrainingJob job = (KubernetesTrainingJob) pipeline(sleeper(),
        Deployers.pyTorchJob("suspended").workers(1)).run();
    try {
      running(job, 2);

      assertThatThrownBy(() -> job.waitForCompletion(Duration.ofSeconds(2), OnTimeout.SUSPEND))
          .isInstanceOfSatisfying(JobTimeoutException.class, e ->
              assertThat(e.getMessage()).contains("suspended it"));

      ClusterKit.await("Suspended without pods", Duration.ofMinutes(2), () -> {
        JobStatus status = job.status();
        return status.phase() == JobPhase.SUSPENDED && status.pods().isEmpty();
      }, () -> job.status().toTable());
      JsonNode stored = kit.json("get", "pytorchjob", "-n", namespace, "suspended");
      assertThat(stored.path("spec").path("runPolicy").path("suspend").asBoolean()).isTrue();
    } finally {
      job.delete();
    }
  }

  @Test
  void aWaitThatTimesOutDeletesTheJobWithItsPods() throws IOException {
    // No cast: the bounded wait is on every TrainingJob.
    TrainingJob job = pipeline(sleeper(), Deployers.pyTorchJob("deadline").workers(1)).run();
    running(job, 2);

    assertThatThrownBy(() -> job.waitForCompletion(Duration.ofSeconds(2), OnTimeout.DELETE))
        .isInstanceOfSatisfying(JobTimeoutException.class, e ->
            assertThat(e.getMessage()).contains("deleted it"));

    assertThat(kit.run(List.of("get", "pytorchjob", "-n", namespace, "deadline")).output())
        .contains("NotFound");
    assertThat(kit.names("pods", namespace, "training.kubeflow.org/job-name=deadline"))
        .isEmpty();
  }

  @Test
  void aReleasedVolumeIsReportedWithItsFixInsteadOfLeavingTheClaimPending(@TempDir Path data) {
    String volume = "fairing4j-it-released";
    String claim = "released-claim";
    Map<String, String> labels = Map.of("fairing4j.dev/it-volume", volume);
    HostPathVolume pv = Volumes.hostPathPersistentVolume(volume, data.toString(), "1Gi",
        List.of("ReadWriteOnce"), labels);
    VolumeClaim pvc = Volumes.claim(claim, "1Gi", labels, "");
    ClusterStorage storage = Volumes.on(kit.cluster()).inNamespace(namespace);
    try {
      storage.ensure(pv, pvc);
      ClusterKit.await("the claim is Bound", Duration.ofMinutes(1),
          () -> kit.phase("pvc", namespace, claim).equals("Bound"),
          () -> kit.kubectl("get", "pv,pvc", "-n", namespace));
      // The claim goes (a namespace deleted, a user cleaning up); the volume is kept (Retain).
      kit.kubectl("delete", "pvc", "-n", namespace, claim, "--wait=true", "--timeout=60s");
      ClusterKit.await("the volume is Released", Duration.ofMinutes(1),
          () -> kit.phase("pv", namespace, volume).equals("Released"),
          () -> kit.kubectl("get", "pv", volume));

      assertThatThrownBy(() -> storage.ensure(pv, pvc))
          .isInstanceOfSatisfying(StorageConflictException.class, e -> {
            assertThat(e.field()).isEqualTo("status.phase");
            assertThat(e.existingValue()).isEqualTo("Released (its claim " + namespace + "/"
                + claim + " was deleted)");
          });

      // The hint's way to keep the files: free the volume; then it binds the new claim.
      kit.kubectl("patch", "pv", volume, "--type", "json", "-p",
          "[{\"op\":\"remove\",\"path\":\"/spec/claimRef\"}]");
      // The volume controller makes a freed volume Available on its next pass, not at once.
      ClusterKit.await("the freed volume is Available", Duration.ofMinutes(1),
          () -> kit.phase("pv", namespace, volume).equals("Available"),
          () -> kit.kubectl("get", "pv", volume));
      storage.ensure(pv, pvc);
      ClusterKit.await("the new claim is Bound", Duration.ofMinutes(1),
          () -> kit.phase("pvc", namespace, claim).equals("Bound"),
          () -> kit.kubectl("get", "pv,pvc", "-n", namespace));
    } finally {
      kit.run(List.of("delete", "pvc", "-n", namespace, claim, "--ignore-not-found",
          "--wait=true", "--timeout=60s"));
      kit.run(List.of("delete", "pv", volume, "--ignore-not-found", "--wait=true",
          "--timeout=60s"));
    }
  }

  private static void running(TrainingJob job, int pods) {
    ClusterKit.await(pods + " pods Running", Duration.ofMinutes(2), () -> job.status().pods()
        .stream().filter(p -> p.phase().equals("Running")).count() == pods,
        () -> job.status().toTable());
  }

  private static Path sleeper() throws IOException {
    return Files.writeString(scripts.resolve("sleeper.py"), SLEEPER);
  }

  private static dev.fairing4j.core.Pipeline pipeline(Path script, PyTorchJobDeployer deployer) {
    return Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(Builders.jib(kit.base().reference())
            .pushTo(ClusterKit.repository("behaviour")))
        .deployer(deployer.namespace(namespace).replaceExisting().on(kit.cluster()))
        .progress(ProgressListener.NONE);
  }
}

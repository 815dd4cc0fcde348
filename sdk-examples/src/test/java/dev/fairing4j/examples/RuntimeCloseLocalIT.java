package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.FairingRuntime;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link FairingRuntime} on the local cluster, as a service embedding the SDK uses one: a job
 * submitted through it, its progress relayed and its logs followed, then the runtime closed while
 * the job runs. Its threads end (phase relay, log follower, the spare supervisor's keeper), its
 * spare supervisor process exits, and the job runs on under its own supervisor until
 * {@code delete()}: closing releases machinery, never the user's work.
 */
@Timeout(120)
class RuntimeCloseLocalIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String SUPERVISOR =
      "dev.fairing4j.deployer.local.internal.supervisor.SupervisorMain";

  @TempDir Path state;
  @TempDir Path volumes;
  @TempDir Path dir;

  @BeforeAll
  static void tools() {
    Tools.require("bwrap", "bubblewrap");
  }

  @Test
  void closingTheRuntimeEndsItsThreadsAndSpareSupervisorWhileItsJobRunsOn() throws Exception {
    Files.writeString(dir.resolve("train.py"), String.join("\n",
        "import logging, time",
        "logging.basicConfig(level=logging.INFO)",
        "logging.getLogger('train').info('started')",
        "time.sleep(120)", ""));
    Set<Long> before = supervisors();
    FairingRuntime runtime = FairingRuntime.create();
    List<ProgressEvent> events = new CopyOnWriteArrayList<>();
    List<String> lines = new CopyOnWriteArrayList<>();
    TrainingJob job = runtime.pipeline().progress(events::add)
        .preprocessor(Preprocessors.python(dir.resolve("train.py")))
        .deployer(Deployers.pyTorchJob("owned")
            .on(Clusters.local().stateDir(state).volumesDir(volumes)))
        .run();
    try {
      LogStream follower = job.logs().follow(lines::add);
      String owner = runtime.toString().replaceAll("FairingRuntime\\((\\S+),.*", "$1");
      ClusterKit.await("the script's line", WAIT,
          () -> lines.stream().anyMatch(l -> l.contains("started")), lines::toString);
      ClusterKit.await("the job's supervisor and the runtime's spare", WAIT,
          () -> supervisors().size() == before.size() + 2, () -> supervisors().toString());
      Set<Long> started = supervisors();
      started.removeAll(before);
      assertThat(threads("fairing4j-spare-supervisor (" + owner + ")")).isOne();
      assertThat(threads("fairing4j-phases-owned")).isOne();
      assertThat(threads("fairing4j-logs-")).isPositive();

      runtime.close();

      assertThat(follower.isDone()).isTrue();
      ClusterKit.await("the runtime's threads to end", WAIT,
          () -> threads("fairing4j-phases-owned") == 0
              && threads("fairing4j-spare-supervisor (" + owner + ")") == 0
              && threads("fairing4j-logs-") == 0, RuntimeCloseLocalIT::threadNames);
      ClusterKit.await("the spare supervisor to exit and the job's to stay", WAIT,
          () -> started.stream().filter(RuntimeCloseLocalIT::alive).count() == 1,
          started::toString);
      assertThat(job.status().phase()).as("the job runs on").isEqualTo(JobPhase.RUNNING);
      assertThatThrownBy(runtime::pipeline).isInstanceOf(FairingException.class)
          .hasMessageContaining("is closed").hasMessageContaining("FairingRuntime.create()");

      job.delete();
      ClusterKit.await("delete() to end the supervisor", WAIT,
          () -> started.stream().noneMatch(RuntimeCloseLocalIT::alive), started::toString);
    } finally {
      job.delete();
    }
  }

  static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /** The pids of this JVM's local supervisor processes, jobs' and spares'. */
  static Set<Long> supervisors() {
    return ProcessHandle.current().children()
        .filter(p -> p.info().commandLine().orElse("").contains(SUPERVISOR))
        .map(ProcessHandle::pid).collect(Collectors.toSet());
  }

  private static String threadNames() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .map(Thread::getName).filter(n -> n.startsWith("fairing4j-")).sorted().toList()
        .toString();
  }

  private static long threads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .filter(t -> t.getName().startsWith(prefix)).count();
  }
}
